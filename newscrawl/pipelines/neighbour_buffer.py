"""NeighbourBufferPipeline: groups pages per (site, category) until a template can be learned.

No page is held in memory while it waits. A page of a group without a template is stored
(pending) in the database and leaves the chain (PageBuffered, logged at DEBUG). When the group
reaches NEWSCRAWL_NEIGHBOURS pages, its template is learned and stored, and every pending page
of the group re-enters the chain as a new item. Pages of a group with a template go on at once.
When the spider goes idle, groups that never filled are flushed with a partial template or in
single-page mode, so no fetched page is left unextracted. Pages arriving together are stored
in one transaction per batch (storage/batch_writer.py); each item waits for its own commit.

This module is the Scrapy side: settings, signals and the spider's idle. The work is done by
PageAdmitter (page_admission.py), GroupFlusher (group_flush.py), TemplateLearner
(template_learning.py), TemplateCache (template_cache.py) and PageOwnership (page_ownership.py).
"""

from __future__ import annotations

import logging
from typing import Any, Self

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from newscrawl import settings as project_settings
from newscrawl.background_tasks import BackgroundTasks
from newscrawl.extraction import ExtractionConfig
from newscrawl.items import PageItem
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.extraction_config import build_extraction_config
from newscrawl.pipelines.group_flush import GroupFlusher
from newscrawl.pipelines.neighbour_settings import NeighbourSettings, read_neighbour_settings
from newscrawl.pipelines.page_admission import PageAdmitter
from newscrawl.pipelines.page_ownership import PageOwnership
from newscrawl.pipelines.page_spooling import (
    DatabaseUnavailableError,
    PageSpooler,
    describe_database_error,
    is_database_outage,
)
from newscrawl.pipelines.reinjection import EngineReinjector, ItemReinjector
from newscrawl.pipelines.template_cache import TemplateCache
from newscrawl.pipelines.template_learning import TemplateLearner
from newscrawl.stats_keys import (
    NEIGHBOUR_BUFFER_FLUSH_ERRORS,
    NEIGHBOUR_BUFFER_TEMPLATES_UNREADABLE,
    count_event,
)
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.page_claims import open_page_claims
from newscrawl.storage.page_repository import PageRepository

logger = logging.getLogger(__name__)

# Decoded templates kept per pipeline; one per group, so this only bounds pathological crawls.
TEMPLATE_CACHE_SIZE = 4096
# Idle flushes retried after an error (e.g. the database is down) before the spider may close.
MAX_FLUSH_FAILURES = 3


class NeighbourBufferPipeline:
    """Durable, non-blocking neighbour buffer in front of the extraction stages."""

    def __init__(
        self,
        *,
        store: CrawlStore,
        settings: NeighbourSettings,
        config: ExtractionConfig,
        stats: StatsCollector,
        reinjector: ItemReinjector,
    ) -> None:
        # The crawl's one engine and batch writer, shared with the other pipelines.
        self.store = store
        self.settings = settings
        self.config = config
        self.stats = stats
        self.reinjector = reinjector
        # Where fetched pages go when the database cannot take them (issue #5).
        self.spooler: PageSpooler | None = store.spooler
        self.engine: Engine | None = None
        self.pages: PageRepository | None = None
        self.writer: BatchWriter | None = None
        self.templates = TemplateCache(
            TEMPLATE_CACHE_SIZE,
            on_unreadable=lambda: count_event(self.stats, NEIGHBOUR_BUFFER_TEMPLATES_UNREADABLE),
        )
        self.ownership = PageOwnership(stats, on_left_to_others=self._pace_flush)
        # Built once the database is open.
        self.admitter: PageAdmitter | None = None
        self.flusher: GroupFlusher | None = None
        self.flushes = BackgroundTasks(
            on_error=self._on_flush_failed, on_success=self._on_flush_done
        )
        # Pages may wait from an earlier, interrupted crawl: the first idle flush looks.
        self._flush_needed = True
        self._flush_failures = 0
        # Set when a flush left pages to another worker: looking again waits for Scrapy's idle
        # heartbeat instead of waking the engine at once, which would spin until they are done.
        self._pace_next_flush = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool(
            "NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED",
            project_settings.NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED,
        ):
            raise NotConfigured("the neighbour buffer is off (NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED)")
        neighbour_settings = read_neighbour_settings(settings)
        assert crawler.stats is not None
        pipeline = cls(
            store=CrawlStore.from_crawler(crawler),
            settings=neighbour_settings,
            config=build_extraction_config(settings),
            stats=crawler.stats,
            reinjector=EngineReinjector(crawler),
        )
        crawler.signals.connect(pipeline.on_spider_idle, signal=signals.spider_idle)
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(pipeline.on_item_done, signal=signal)
        return pipeline

    async def open_spider(self) -> None:
        try:
            self.engine = await self.store.open()
            pages = PageRepository(self.engine)
            if self.spooler is not None:
                # Pages kept by a crawl that lost its database go first; the idle flush
                # extracts them with the rest of the pending pages.
                await self.spooler.replay_pages(pages)
        except (DBAPIError, DatabaseUnavailableError) as error:
            if self.spooler is None or not is_database_outage(error):
                raise
            # No repository: every fetched page is spooled until the spider has closed.
            self.spooler.stop_crawl(error)
            return
        self.pages = pages
        self.ownership.open(open_page_claims(self.engine))
        self.writer = self.store.require_writer()
        learner = TemplateLearner(pages, self.settings, self.config, self.stats)
        self.flusher = GroupFlusher(
            pages=pages,
            writer=self.writer,
            learner=learner,
            templates=self.templates,
            ownership=self.ownership,
            reinjector=self.reinjector,
            settings=self.settings,
            stats=self.stats,
        )
        flusher = self.flusher
        self.admitter = PageAdmitter(
            pages=pages,
            writer=self.writer,
            spooler=self.spooler,
            learner=learner,
            templates=self.templates,
            ownership=self.ownership,
            settings=self.settings,
            stats=self.stats,
            is_flushing=flusher.flushing.__contains__,
            start_group_flush=lambda group_key: self.flushes.spawn(flusher.flush_group(group_key)),
            on_page_waiting=self._note_pending,
        )

    async def close_spider(self) -> None:
        await self.flushes.cancel_all()
        await self.ownership.wait_for_releases()
        await self.store.flush()
        await self.ownership.close()
        if self.engine is not None:
            await self.store.close()

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem) or item.extraction_mode is not None:
            # Not ours, or re-injected by this buffer with its template already chosen.
            return item
        if self.spooler is not None and self.spooler.is_stopping:
            # The database already failed its retries: keep the page without a new wait.
            await self.spooler.spool_page(item, RuntimeError("the database is unavailable"))
        if self.admitter is None:
            raise RuntimeError("NeighbourBufferPipeline used before open_spider()")
        return await self.admitter.admit_page(item)

    def on_item_done(self, item: Any) -> None:
        """Forget a page once the chain is done with it (stored, dropped or failed).

        Items without a mode never passed the buffer: they were buffered, or were taken by a
        flush that still owns their page.
        """
        if isinstance(item, PageItem) and item.page_id is not None and item.extraction_mode:
            self.ownership.finish_page(item.page_id)

    async def wait_for_flushes(self) -> None:
        """Return once every flush started so far (and any it started) has finished."""
        await self.flushes.wait_all()

    def on_spider_idle(self) -> None:
        """Keep the spider open while pending pages are being flushed back into the chain."""
        self.flushes.forget_done()
        if self.flushes:
            raise DontCloseSpider
        if self._flush_needed and self.flusher is not None:
            self._flush_needed = False
            self._pace_next_flush = False
            self.flushes.spawn(self.flusher.flush_pending_groups())
            raise DontCloseSpider

    def _note_pending(self) -> None:
        self._flush_needed = True

    def _pace_flush(self) -> None:
        # Look again at the next idle: if the other worker dies, its pages are ours to finish.
        self._flush_needed = True
        self._pace_next_flush = True

    def _on_flush_failed(self, error: BaseException) -> None:
        # The pages stay pending in the database; a later idle flush or crawl retries.
        self._flush_failures += 1
        self._flush_needed = self._flush_failures < MAX_FLUSH_FAILURES
        count_event(self.stats, NEIGHBOUR_BUFFER_FLUSH_ERRORS)
        if self.spooler is not None and is_database_outage(error):
            # The outage stops the crawl, whose one ERROR line says why: no traceback here.
            self.spooler.stop_crawl(error)
            logger.warning(
                "Neighbour buffer flush stopped, its pages stay pending: %s",
                describe_database_error(error),
            )
            return
        logger.error("Neighbour buffer flush failed", exc_info=error)

    def _on_flush_done(self) -> None:
        if not self.flushes and not self._pace_next_flush:
            # Re-injected items end without a response, so Scrapy would notice the spider is
            # idle (and may close, or start the final flush) only at its next 5 s heartbeat.
            self.reinjector.request_idle_check()
