"""ProgressLogExtension: a periodic log line with pages, articles, pending neighbours, due feeds,
and a summary line when the crawl ends."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine

from newscrawl import settings as project_settings
from newscrawl.exit_codes import SHUTDOWN_REASON
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.page_spooling import describe_database_error
from newscrawl.stats_keys import (
    PAGE_FETCHED_KEYS,
    SOURCE_FAILED_KEYS,
    SOURCE_READ_KEYS,
    SQL_STORAGE_ARTICLES_STORED,
    sum_stats,
)
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.page_repository import PageRepository

logger = logging.getLogger(__name__)

# Groups named in the log line; the rest are summed, to keep it one line on big crawls.
LOGGED_GROUPS = 5
ARTICLE_PAGE_KEYS = tuple(PAGE_FETCHED_KEYS.values())
ARTICLES_STORED_KEY = SQL_STORAGE_ARTICLES_STORED


def format_progress(
    stats: Mapping[str, object], pending: dict[str, int], feeds_due: int | None = None
) -> str:
    """One progress line from the crawl stats, the pending pages per group and the due feeds."""
    # Article pages only: robots.txt, feeds and sitemaps are responses too, but no progress.
    fetched = sum_stats(stats, ARTICLE_PAGE_KEYS)
    stored = stats.get(ARTICLES_STORED_KEY, 0)
    biggest = sorted(pending.items(), key=lambda entry: (-entry[1], entry[0]))
    shown = ", ".join(f"{group}={count}" for group, count in biggest[:LOGGED_GROUPS])
    rest = sum(count for _, count in biggest[LOGGED_GROUPS:])
    if rest:
        shown += f", {len(biggest) - LOGGED_GROUPS} more groups={rest}"
    return (
        f"Progress: {fetched} article pages fetched, {stored} articles stored,"
        f" {sum(pending.values())} pages pending in {len(pending)} groups"
        + (f" ({shown})" if shown else "")
        + (f", {feeds_due} feeds due" if feeds_due is not None else "")
    )


def format_summary(stats: Mapping[str, object], reason: str, pending: int | None) -> str:
    """The line that ends a crawl: what it fetched and stored, and which sources failed."""
    fetched = sum_stats(stats, ARTICLE_PAGE_KEYS)
    stored = stats.get(ARTICLES_STORED_KEY, 0)
    read = sum_stats(stats, SOURCE_READ_KEYS)
    failed = sum_stats(stats, SOURCE_FAILED_KEYS)
    line = (
        f"Crawl ended ({reason}): {fetched} article pages fetched, {stored} articles stored;"
        f" {read} feeds or sitemaps read, {failed} failed"
    )
    if failed:
        line += " (none could be read)" if not read else " (see the warnings above)"
    if reason == SHUTDOWN_REASON and pending:
        line += (
            f". Interrupted with {pending} fetched pages pending in the database:"
            " the next crawl extracts them"
        )
    return line


class ProgressLogExtension:
    """Logs progress every NEWSCRAWL_PROGRESS_INTERVAL seconds."""

    def __init__(self, store: CrawlStore, stats: StatsCollector, interval: float) -> None:
        # The crawl's one engine, shared with the pipelines.
        self.store = store
        self.stats = stats
        self.interval = interval
        self.engine: Engine | None = None
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        # <= 0 turns the periodic line off; the summary at the end stays.
        interval = crawler.settings.getfloat(
            "NEWSCRAWL_PROGRESS_INTERVAL", project_settings.NEWSCRAWL_PROGRESS_INTERVAL
        )
        assert crawler.stats is not None
        extension = cls(CrawlStore.from_crawler(crawler), crawler.stats, interval)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    async def spider_opened(self, spider: Spider) -> None:
        try:
            self.engine = await self.store.open()
        except Exception as exc:
            # The pipelines stop the crawl and say why; the log only loses its pending counts.
            logger.warning("No pending counts in progress lines: %s", describe_database_error(exc))
        if self.interval > 0:
            self.task = asyncio.ensure_future(self._log_periodically())

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        pending = await self.count_pending() if reason == SHUTDOWN_REASON else None
        logger.info(format_summary(self.stats.get_stats(), reason, pending))
        if self.engine is not None:
            await self.store.close()

    async def count_pending(self) -> int | None:
        """Pages stored but not yet extracted (all groups); None when the database says nothing."""
        if self.engine is None:
            return None
        try:
            pending = await asyncio.to_thread(PageRepository(self.engine).count_pending_pages)
        except Exception as exc:
            logger.warning("Cannot count pending pages: %s", describe_database_error(exc))
            return None
        return sum(pending.values())

    async def log_progress(self) -> None:
        """Log one progress line; a database hiccup only costs the pending counts."""
        pending: dict[str, int] = {}
        feeds_due: int | None = None
        if self.engine is not None:
            try:
                pending = await asyncio.to_thread(PageRepository(self.engine).count_pending_pages)
                feeds_due = await asyncio.to_thread(
                    FeedRepository(self.engine).count_due_feeds, datetime.now(UTC)
                )
            except Exception as exc:
                logger.warning("Cannot count pending pages and due feeds: %s", exc)
        logger.info(format_progress(self.stats.get_stats(), pending, feeds_due))

    async def _log_periodically(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.log_progress()
