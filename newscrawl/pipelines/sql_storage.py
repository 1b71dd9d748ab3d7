"""SqlStoragePipeline: store each extracted article, upserted by URL, and close its page.

Writes of concurrent items share one transaction per batch (NEWSCRAWL_WRITE_BATCH_SIZE,
NEWSCRAWL_WRITE_BATCH_DELAY, storage/batch_writer.py); each item waits for its own commit.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from functools import partial
from typing import Any, NoReturn, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from newscrawl import settings as project_settings
from newscrawl.extraction import Article, ExtractionConfig
from newscrawl.extraction.word_tokens import count_text_words
from newscrawl.items import PageItem
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.errors import PageExtractionFailed, PageKeptPending
from newscrawl.pipelines.extraction_config import build_extraction_config
from newscrawl.pipelines.page_items import build_page_record
from newscrawl.pipelines.page_spooling import (
    DatabaseUnavailableError,
    PageSpooler,
    describe_database_error,
    is_database_outage,
)
from newscrawl.pipelines.quality_signals import ExtractionQualityCounter, QualityThresholds
from newscrawl.stats_keys import (
    SQL_STORAGE_ARTICLES_STORED,
    SQL_STORAGE_EMPTY_ARTICLES,
    SQL_STORAGE_EXTRACTION_ERRORS,
    SQL_STORAGE_METHOD_KEYS,
    SQL_STORAGE_STORAGE_ERRORS,
    count_event,
)
from newscrawl.storage.article_repository import ArticleWrite
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.page_repository import write_failed_page
from newscrawl.storage.records import ArticleRecord

logger = logging.getLogger(__name__)



class SqlStoragePipeline:
    """Last stage: store the article and close its page, in batches."""

    def __init__(
        self,
        *,
        store: CrawlStore,
        config: ExtractionConfig,
        stats: StatsCollector,
        quality: QualityThresholds | None = None,
    ) -> None:
        # The crawl's one engine and batch writer, shared with the other pipelines.
        self.store = store
        self.config = config
        self.stats = stats
        self.engine: Engine | None = None
        self.writer: BatchWriter | None = None
        self.quality = ExtractionQualityCounter(stats, quality or QualityThresholds())
        # Where pages not yet in `pages` go when the database cannot take them (issue #5).
        self.spooler: PageSpooler | None = store.spooler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool(
            "NEWSCRAWL_SQL_STORAGE_ENABLED", project_settings.NEWSCRAWL_SQL_STORAGE_ENABLED
        ):
            raise NotConfigured("SQL storage is off (NEWSCRAWL_SQL_STORAGE_ENABLED)")
        assert crawler.stats is not None
        return cls(
            store=CrawlStore.from_crawler(crawler),
            config=build_extraction_config(settings),
            stats=crawler.stats,
            quality=QualityThresholds(
                short_words=settings.getint(
                    "NEWSCRAWL_QUALITY_SHORT_WORDS", project_settings.NEWSCRAWL_QUALITY_SHORT_WORDS
                ),
                max_sites=settings.getint(
                    "NEWSCRAWL_QUALITY_MAX_SITES", project_settings.NEWSCRAWL_QUALITY_MAX_SITES
                ),
            ),
        )

    async def open_spider(self) -> None:
        # The store migrates on its first open, so a crawl always starts on an up-to-date schema.
        try:
            self.engine = await self.store.open()
        except (DBAPIError, DatabaseUnavailableError) as error:
            if self.spooler is None or not is_database_outage(error):
                raise
            # No repositories: pages reaching this stage are kept until the spider closed.
            self.spooler.stop_crawl(error)
            return
        self.writer = self.store.require_writer()

    async def close_spider(self) -> None:
        self.quality.publish_shares()
        if self.engine is not None:
            await self.store.close()

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        if self.spooler is not None and self.spooler.is_stopping:
            # The database already failed its retries: keep the page without a new wait.
            await self._keep_page(item, RuntimeError("the database is unavailable"))
        writer = self._require_writer()
        article = await self._obtain_article(writer, item)
        if not article.text.strip():
            self.quality.count_empty(item.site)
            await self._fail_page(
                writer, item, "no article text found", SQL_STORAGE_EMPTY_ARTICLES
            )
        record = self._build_record(item, article)
        page = build_page_record(item) if item.page_id is None else None
        # Counted once, by the extraction: for the quality stats here and for the row.
        word_count = item.word_count
        if word_count is None:
            word_count = count_text_words(article.text)
        try:
            await writer.write(
                ArticleWrite(record, item.page_id, page, word_count=word_count),
                key=_lock_key(item),
            )
        except Exception as error:
            await self._handle_write_error(writer, item, error)
        count_event(self.stats, SQL_STORAGE_ARTICLES_STORED)
        count_event(self.stats, SQL_STORAGE_METHOD_KEYS[article.method])
        self.quality.count_article(item.site, method=article.method, word_count=word_count)
        item.article = article
        return item

    async def _obtain_article(self, writer: BatchWriter, item: PageItem) -> Article:
        """The article ArticleExtractionPipeline extracted; without one the page fails."""
        error = item.extraction_error
        if error is not None:
            await self._fail_page(
                writer, item, f"extraction error: {error}", SQL_STORAGE_EXTRACTION_ERRORS
            )
        if item.article is None:
            reason = "extraction error: no article (ArticleExtractionPipeline is not enabled)"
            await self._fail_page(writer, item, reason, SQL_STORAGE_EXTRACTION_ERRORS)
        return item.article

    async def _fail_page(
        self, writer: BatchWriter, item: PageItem, reason: str, key: str
    ) -> NoReturn:
        """Record the page as failed with its reason (one transaction), count it, drop the item."""
        page = build_page_record(item) if item.page_id is None else None
        try:
            item.page_id = await writer.write(
                partial(write_failed_page, reason=reason, page_id=item.page_id, page=page),
                key=_lock_key(item),
            )
        except Exception as error:
            await self._handle_write_error(writer, item, error, failing=True)
        count_event(self.stats, key)
        raise PageExtractionFailed(f"{item.url}: {reason}")

    async def _handle_write_error(
        self, writer: BatchWriter, item: PageItem, error: Exception, *, failing: bool = False
    ) -> NoReturn:
        """An outage keeps the page for the next crawl; any other error fails this page only."""
        if is_database_outage(error):
            if self.spooler is None:
                raise error
            await self._keep_page(item, error)
        count_event(self.stats, SQL_STORAGE_STORAGE_ERRORS)
        logger.error(
            "Cannot store %s, dropping it: %s",
            item.url,
            describe_database_error(error),
            exc_info=error,
        )
        if not failing:
            # Mark the page failed with the reason, so that no flush takes it up again.
            reason = f"storage error: {describe_database_error(error)}"
            page = build_page_record(item) if item.page_id is None else None
            try:
                await writer.write(
                    partial(write_failed_page, reason=reason, page_id=item.page_id, page=page),
                    key=_lock_key(item),
                )
            except Exception:
                logger.error("Cannot mark %s failed either", item.url, exc_info=True)
        raise PageExtractionFailed(f"{item.url}: storage error") from error

    async def _keep_page(self, item: PageItem, error: BaseException) -> NoReturn:
        """The database is down: a page already in `pages` stays pending, any other is spooled."""
        assert self.spooler is not None
        if item.page_id is None:
            await self.spooler.spool_page(item, error)
        self.spooler.stop_crawl(error)
        raise PageKeptPending(
            f"{item.url}: the database is unavailable; page {item.page_id} stays pending"
        )

    def _build_record(self, item: PageItem, article: Article) -> ArticleRecord:
        return build_article_record(item, article, config_version=self.config.version)

    def _require_writer(self) -> BatchWriter:
        if self.writer is None:
            raise RuntimeError("SqlStoragePipeline used before open_spider()")
        return self.writer


def _lock_key(item: PageItem) -> str:
    """Batches write in (site, URL) order: the site row is the one shared by many pages."""
    return f"{item.site}\n{item.url}"


def build_article_record(
    item: PageItem, article: Article, *, config_version: str = ""
) -> ArticleRecord:
    """The row stored for an item's article (also what `-O FILE` exports)."""
    return ArticleRecord(
        url=item.url,
        title=article.title or item.title or "",
        text=article.text,
        html=article.html,
        site=item.site,
        category=item.category,
        fetched_at=item.fetched_at,
        extracted_at=datetime.now(UTC),
        extraction_method=article.method,
        config_version=article.config_version or config_version,
        canonical_url=article.canonical_url,
        published_at=article.published or item.published,
        authors=list(article.authors or item.authors),
        keywords=list(item.keywords),
        language=article.language,
        image_url=article.image_url,
        image_caption=article.image_caption,
        description=article.description,
        site_name=article.site_name,
        tags=list(article.tags),
        modified_at=article.modified,
        page_headline=article.page_headline,
        feed=item.feed_url,
    )
