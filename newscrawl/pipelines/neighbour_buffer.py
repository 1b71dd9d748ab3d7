"""NeighbourBufferPipeline: groups pages per (site, category) until a template can be learned.

No page is held in memory while it waits. A page of a group without a template is stored
(pending) in the database and leaves the chain (PageBuffered, logged at DEBUG). When the group
reaches NEWSCRAWL_NEIGHBOURS pages, its template is learned and stored, and every pending page
of the group re-enters the chain as a new item. Pages of a group with a template go on at once.
When the spider goes idle, groups that never filled are flushed with a partial template or in
single-page mode, so no fetched page is left unextracted. Pages arriving together are stored
in one transaction per batch (storage/batch_writer.py); each item waits for its own commit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, Self

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from newscrawl import settings as project_settings
from newscrawl.extraction import (
    ExtractionConfig,
    SiteTemplate,
    TemplateFormatError,
    learn_static_noise,
)
from newscrawl.items import PageItem
from newscrawl.pipelines.claim_batching import ClaimBatcher
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.errors import PageBuffered, PageExtractionFailed
from newscrawl.pipelines.extraction_config import build_extraction_config
from newscrawl.pipelines.page_items import build_page_item, build_page_record, decode_body
from newscrawl.pipelines.page_spooling import (
    PageSpooler,
    describe_database_error,
    is_database_outage,
)
from newscrawl.pipelines.reinjection import EngineReinjector, ItemReinjector
from newscrawl.stats_keys import (
    NEIGHBOUR_BUFFER_CLAIM_ERRORS,
    NEIGHBOUR_BUFFER_FLUSH_ERRORS,
    NEIGHBOUR_BUFFER_GROUPS_FLUSHED_PARTIAL,
    NEIGHBOUR_BUFFER_GROUPS_FLUSHED_SINGLE,
    NEIGHBOUR_BUFFER_PAGES_BUFFERED,
    NEIGHBOUR_BUFFER_PAGES_CLAIMED_ELSEWHERE,
    NEIGHBOUR_BUFFER_PAGES_STORED,
    NEIGHBOUR_BUFFER_PAGES_WITH_TEMPLATE,
    NEIGHBOUR_BUFFER_REINJECTED_KEYS,
    NEIGHBOUR_BUFFER_STORAGE_ERRORS,
    NEIGHBOUR_BUFFER_TEMPLATE_ERRORS,
    NEIGHBOUR_BUFFER_TEMPLATES_LEARNED,
    NEIGHBOUR_BUFFER_TEMPLATES_STALE,
    NEIGHBOUR_BUFFER_TEMPLATES_UNREADABLE,
    count_event,
)
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.page_claims import PageClaims, open_page_claims
from newscrawl.storage.page_repository import (
    PageRepository,
    write_admission,
    write_failed_page,
)
from newscrawl.storage.records import (
    Admission,
    LearnedTemplate,
    PageRecord,
    PendingGroup,
    StoredPage,
    TemplateKey,
    TemplateRecord,
)
from newscrawl.storage.retry import run_in_thread_with_retry

logger = logging.getLogger(__name__)

# Decoded templates kept per pipeline; one per group, so this only bounds pathological crawls.
TEMPLATE_CACHE_SIZE = 4096
# Idle flushes retried after an error (e.g. the database is down) before the spider may close.
MAX_FLUSH_FAILURES = 3
# Groups the end-of-crawl flush works on at once (their writes share batches).
FINAL_FLUSH_GROUPS = 16


class NeighbourBufferPipeline:
    """Durable, non-blocking neighbour buffer in front of the extraction stages."""

    def __init__(
        self,
        *,
        store: CrawlStore,
        neighbours: int,
        min_neighbours: int,
        template_max_age: timedelta | None,
        template_max_pages: int,
        config: ExtractionConfig,
        stats: StatsCollector,
        reinjector: ItemReinjector,
    ) -> None:
        # The crawl's one engine and batch writer, shared with the other pipelines.
        self.store = store
        self.neighbours = neighbours
        self.min_neighbours = min_neighbours
        self.template_max_age = template_max_age
        self.template_max_pages = template_max_pages
        self.config = config
        self.stats = stats
        self.reinjector = reinjector
        # Where fetched pages go when the database cannot take them (issue #5).
        self.spooler: PageSpooler | None = store.spooler
        self.engine: Engine | None = None
        self.pages: PageRepository | None = None
        self.writer: BatchWriter | None = None
        # Claims keep workers sharing one database off each other's pages (issue #4).
        self.claims: PageClaims | None = None
        self._claim_batcher: ClaimBatcher | None = None
        self._claimed: set[int] = set()
        self._releases: set[asyncio.Task[None]] = set()
        self._templates: dict[TemplateKey, SiteTemplate] = {}
        # Pages somewhere in the chain right now, and groups being flushed.
        self._in_flight: set[int] = set()
        self._flushing: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
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
        neighbours = settings.getint("NEWSCRAWL_NEIGHBOURS", project_settings.NEWSCRAWL_NEIGHBOURS)
        min_neighbours = settings.getint(
            "NEWSCRAWL_MIN_NEIGHBOURS", project_settings.NEWSCRAWL_MIN_NEIGHBOURS
        )
        if neighbours < 1:
            raise NotConfigured(f"NEWSCRAWL_NEIGHBOURS must be at least 1, not {neighbours}")
        if not 1 <= min_neighbours <= neighbours:
            raise NotConfigured(
                f"NEWSCRAWL_MIN_NEIGHBOURS must be between 1 and NEWSCRAWL_NEIGHBOURS"
                f" ({neighbours}), not {min_neighbours}"
            )
        max_age = settings.getfloat(
            "NEWSCRAWL_TEMPLATE_MAX_AGE", project_settings.NEWSCRAWL_TEMPLATE_MAX_AGE
        )
        assert crawler.stats is not None
        pipeline = cls(
            store=CrawlStore.from_crawler(crawler),
            neighbours=neighbours,
            min_neighbours=min_neighbours,
            template_max_age=timedelta(seconds=max_age) if max_age > 0 else None,
            template_max_pages=settings.getint(
                "NEWSCRAWL_TEMPLATE_MAX_PAGES", project_settings.NEWSCRAWL_TEMPLATE_MAX_PAGES
            ),
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
        except DBAPIError as error:
            if self.spooler is None or not is_database_outage(error):
                raise
            # No repository: every fetched page is spooled until the spider has closed.
            self.spooler.stop_crawl(error)
            return
        self.pages = pages
        self.claims = open_page_claims(self.engine)
        self._claim_batcher = ClaimBatcher(self.claims)
        self.writer = self.store.require_writer()

    async def close_spider(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._releases:
            await asyncio.gather(*self._releases, return_exceptions=True)
        await self.store.flush()
        if self.claims is not None:
            # Closing the claims connection releases whatever is still claimed.
            await asyncio.to_thread(self.claims.close)
        if self.engine is not None:
            await self.store.close()

    async def _record_failed_page(
        self, writer: BatchWriter, record: PageRecord, error: BaseException
    ) -> None:
        """Store the refused page as failed with the reason, so that it is not silently lost."""
        reason = f"storage error: {describe_database_error(error)}"
        try:
            await writer.write(
                partial(write_failed_page, reason=reason, page_id=None, page=record),
                key=f"{record.site}\n{record.url}",
            )
        except Exception:
            logger.error("Cannot mark %s failed either", record.url, exc_info=True)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem) or item.extraction_mode is not None:
            # Not ours, or re-injected by this buffer with its template already chosen.
            return item
        if self.spooler is not None and self.spooler.is_stopping:
            # The database already failed its retries: keep the page without a new wait.
            await self.spooler.spool_page(item, RuntimeError("the database is unavailable"))
        writer = self._require_writer()
        record = build_page_record(item)
        try:
            admission = await writer.write(
                partial(
                    write_admission,
                    page=record,
                    count_limit=max(self.template_max_pages, self.neighbours),
                    # Read in the writer's thread: a key seen there skips loading the blob.
                    known_templates=self._templates.keys(),
                ),
                key=f"{record.site}\n{record.url}",
            )
        except Exception as error:
            if not is_database_outage(error):
                # A row the database refuses: this page only, counted, not an unhandled error.
                count_event(self.stats, NEIGHBOUR_BUFFER_STORAGE_ERRORS)
                logger.error(
                    "Cannot store %s, dropping it: %s",
                    item.url,
                    describe_database_error(error),
                    exc_info=error,
                )
                await self._record_failed_page(writer, record, error)
                raise PageExtractionFailed(f"{item.url}: storage error") from error
            if self.spooler is None:
                raise
            await self.spooler.spool_page(item, error)
        item.page_id = admission.page_id
        count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_STORED)
        if admission.page_id in self._in_flight:
            # A group flush loaded the page the moment it was stored and re-injected it.
            raise PageBuffered(f"{item.url} is already re-injected by a group flush")
        # Still "pending" in the database until stored: concurrent flushes must not take it.
        self._in_flight.add(admission.page_id)
        stored = admission.template
        if stored is not None and stored.template is None and stored.key not in self._templates:
            # The decoded copy was evicted after the admission skipped the blob: load it.
            stored = await run_in_thread_with_retry(
                self._require_pages().get_template, record.group_key
            )
        template = self._decode_template(stored) if stored is not None else None
        if stored is not None and (template is None or self._is_stale(stored, admission)):
            count_event(self.stats, NEIGHBOUR_BUFFER_TEMPLATES_STALE)
            stored = await self._learn_template(record.group_key, replaces=stored.learned_at)
            template = self._decode_template(stored) if stored is not None else None
        elif stored is None and admission.pending_in_group >= self.neighbours:
            stored = await self._learn_template(record.group_key, replaces=None)
            template = self._decode_template(stored) if stored is not None else None
            if template is not None and record.group_key not in self._flushing:
                self._start_task(self._flush_group(record.group_key))
        if template is None:
            self._in_flight.discard(admission.page_id)
            self._flush_needed = True
            count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_BUFFERED)
            raise PageBuffered(
                f"waiting for neighbours in {record.group_key!r}"
                f" ({admission.pending_in_group}/{self.neighbours} pages)"
            )
        if not await self._claim_pages([admission.page_id]):
            self._in_flight.discard(admission.page_id)
            raise PageBuffered(f"{item.url} is being extracted by another worker")
        self._claimed.add(admission.page_id)
        item.template = template
        # The page that filled its group is one the template was learned from.
        item.template_includes_page = admission.page_id in await self._learned_from(
            stored, admission.page_id
        )
        item.extraction_mode = "neighbours"
        count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_WITH_TEMPLATE)
        return item

    def on_item_done(self, item: Any) -> None:
        """Forget a page once the chain is done with it (stored, dropped or failed).

        Items without a mode never passed the buffer: they were buffered, or were taken by a
        flush that still owns their page.
        """
        if isinstance(item, PageItem) and item.page_id is not None and item.extraction_mode:
            self._in_flight.discard(item.page_id)
            if item.page_id in self._claimed:
                self._claimed.discard(item.page_id)
                self._start_release([item.page_id])

    async def wait_for_flushes(self) -> None:
        """Return once every flush started so far (and any it started) has finished."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def on_spider_idle(self) -> None:
        """Keep the spider open while pending pages are being flushed back into the chain."""
        self._tasks = {task for task in self._tasks if not task.done()}
        if self._tasks:
            raise DontCloseSpider
        if self._flush_needed and self.pages is not None:
            self._flush_needed = False
            self._pace_next_flush = False
            self._start_task(self._flush_pending_groups())
            raise DontCloseSpider

    async def _flush_pending_groups(self) -> None:
        """Extract every pending page: full or partial template, else single-page mode.

        Groups are flushed FINAL_FLUSH_GROUPS at a time: their pages then share the batches of
        the writer, instead of each small group waiting NEWSCRAWL_WRITE_BATCH_DELAY on its own.
        """
        pages = self._require_pages()
        groups = await run_in_thread_with_retry(pages.list_pending_groups)
        slots = asyncio.Semaphore(FINAL_FLUSH_GROUPS)

        async def flush(group: PendingGroup) -> None:
            async with slots:
                await self._flush_pending_group(group)

        results = await asyncio.gather(*(flush(group) for group in groups), return_exceptions=True)
        # Every group had its go; the first failure makes the flush count as failed (retried).
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _flush_pending_group(self, group: PendingGroup) -> None:
        """Flush one group left pending: with a (partial) template if it can have one."""
        pages = self._require_pages()
        stored = None
        if group.pending >= self.min_neighbours:
            stored = await self._learn_template(
                group.group_key, replaces=None, min_pages=self.min_neighbours
            )
        else:
            stored = await run_in_thread_with_retry(pages.get_template, group.group_key)
        template = self._decode_template(stored) if stored is not None else None
        mode = "neighbours" if template is not None else "single"
        if stored is not None and template is not None and stored.page_count < self.neighbours:
            count_event(self.stats, NEIGHBOUR_BUFFER_GROUPS_FLUSHED_PARTIAL)
        elif template is None:
            count_event(self.stats, NEIGHBOUR_BUFFER_GROUPS_FLUSHED_SINGLE)
        await self._flush_group(group.group_key, template=template, mode=mode, stored=stored)

    async def _flush_group(
        self,
        group_key: str,
        *,
        template: SiteTemplate | None = None,
        mode: str = "neighbours",
        stored: TemplateRecord | None = None,
    ) -> None:
        """Re-inject the group's pending pages in batches, each page once per flush.

        `stored` is the record of `template`; without a template the group's own is looked up.
        """
        pages = self._require_pages()
        self._flushing.add(group_key)
        try:
            if template is None and mode == "neighbours":
                stored = await run_in_thread_with_retry(pages.get_template, group_key)
                template = self._decode_template(stored) if stored is not None else None
                mode = "neighbours" if template is not None else "single"
            # The pages the template was learned from are judged against the others only.
            learned_from = (
                await self._learned_from(stored) if template is not None else set()
            )
            # Keyset paging: each page once per flush, at a constant cost per batch.
            last_id: int | None = None
            while True:
                loaded = await run_in_thread_with_retry(
                    pages.load_pending_pages, group_key, after_id=last_id, limit=self.neighbours
                )
                if not loaded:
                    return
                last_id = loaded[-1].id
                # Pages in flight (this worker's chain or another flush) are not ours to take.
                batch = [page for page in loaded if page.id not in self._in_flight]
                if not batch:
                    continue
                # Reserved before the claim is awaited, so that no other flush of this worker
                # takes them meanwhile (advisory locks are re-entrant within one connection).
                self._in_flight.update(page.id for page in batch)
                claimed = await self._claim_pages([page.id for page in batch])
                self._in_flight.difference_update(
                    page.id for page in batch if page.id not in claimed
                )
                batch = [page for page in batch if page.id in claimed]
                try:
                    accepted = await asyncio.gather(
                        *(
                            self._reinject(page, template, mode, page.id in learned_from)
                            for page in batch
                        )
                    )
                finally:
                    self._start_release([page.id for page in batch])
                if not all(accepted):
                    # The crawl is closing: the rest stays pending for the next one.
                    return
        finally:
            self._flushing.discard(group_key)

    async def _reinject(
        self,
        page: StoredPage,
        template: SiteTemplate | None,
        mode: str,
        template_includes_page: bool = False,
    ) -> bool:
        self._in_flight.add(page.id)
        try:
            item = build_page_item(
                page,
                template=template,
                extraction_mode=mode,
                template_includes_page=template_includes_page,
            )
            accepted = await self.reinjector.reinject(item)
        finally:
            self._in_flight.discard(page.id)
        if accepted:
            count_event(self.stats, NEIGHBOUR_BUFFER_REINJECTED_KEYS[mode])
        return accepted

    async def _learned_from(
        self, stored: TemplateRecord | None, page_id: int | None = None
    ) -> set[int]:
        """Ids of the pages `stored` was learned from; only asked when `page_id` may be one."""
        if stored is None or (page_id is not None and page_id > stored.last_page_id):
            return set()
        return await run_in_thread_with_retry(self._require_pages().list_template_pages, stored)

    async def _learn_template(
        self, group_key: str, *, replaces: datetime | None, min_pages: int | None = None
    ) -> TemplateRecord | None:
        """Learn (or fetch the newer) template; None if the group is too small or learning failed.

        A failure is logged and counted, never raised: the page is stored either way, and a
        group that cannot be learned still ends in single-page mode at the idle flush.
        """
        try:
            return await run_in_thread_with_retry(
                self._require_pages().learn_template,
                group_key,
                partial(self._learn_from_bodies, asyncio.get_running_loop()),
                max_pages=self.neighbours,
                min_pages=min_pages if min_pages is not None else self.neighbours,
                replaces=replaces,
            )
        except Exception:
            logger.error("Cannot learn the template of %r", group_key, exc_info=True)
            count_event(self.stats, NEIGHBOUR_BUFFER_TEMPLATE_ERRORS)
            return None

    def _learn_from_bodies(
        self, loop: asyncio.AbstractEventLoop, bodies: list[tuple[bytes, str | None]]
    ) -> LearnedTemplate:
        """Runs in a worker thread, inside the repository's per-group lock."""
        template = learn_static_noise(
            [decode_body(body, encoding) for body, encoding in bodies], self.config
        )
        # Scrapy's stats are not thread-safe: count on the event loop.
        loop.call_soon_threadsafe(count_event, self.stats, NEIGHBOUR_BUFFER_TEMPLATES_LEARNED)
        return LearnedTemplate(
            template=template.to_bytes(),
            format_version=template.format_version,
            page_count=template.page_count,
            config_version=self.config.version,
        )

    def _is_stale(self, stored: TemplateRecord, admission: Admission) -> bool:
        """A template is re-learned when old, outgrown, partial, or from another config."""
        if stored.config_version != self.config.version:
            return True
        age = datetime.now(UTC) - stored.learned_at
        if self.template_max_age is not None and age > self.template_max_age:
            return True
        since = admission.pages_since_template
        if self.template_max_pages > 0 and since >= self.template_max_pages:
            return True
        return stored.page_count < self.neighbours <= stored.page_count + since

    def _decode_template(self, stored: TemplateRecord) -> SiteTemplate | None:
        template = self._templates.get(stored.key)
        if template is not None:
            return template
        if stored.template is None:
            # Only an admission leaves the blob out, and process_item reloads it on a miss.
            return None
        try:
            template = SiteTemplate.from_bytes(stored.template)
        except TemplateFormatError as exc:
            logger.warning("Ignoring unreadable template of %r: %s", stored.group_key, exc)
            count_event(self.stats, NEIGHBOUR_BUFFER_TEMPLATES_UNREADABLE)
            return None
        if len(self._templates) >= TEMPLATE_CACHE_SIZE:
            self._templates.clear()
        self._templates[stored.key] = template
        return template

    async def _claim_pages(self, page_ids: list[int]) -> set[int]:
        """Claim pages against other workers; pages another worker holds are left to it."""
        claims, batcher = self.claims, self._claim_batcher
        if claims is None or not claims.is_shared or batcher is None:
            return set(page_ids)
        claimed = await batcher.claim_pages(page_ids)
        if skipped := len(set(page_ids) - claimed):
            count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_CLAIMED_ELSEWHERE, skipped)
            # Look again at the next idle: if that worker dies, its pages are ours to finish.
            self._flush_needed = True
            self._pace_next_flush = True
        return claimed

    def _start_release(self, page_ids: list[int]) -> None:
        claims, batcher = self.claims, self._claim_batcher
        if claims is None or not claims.is_shared or batcher is None or not page_ids:
            return
        # Releases asked for meanwhile share one task (and one database call).
        task = batcher.release_pages(page_ids)
        if task not in self._releases:
            self._releases.add(task)
            task.add_done_callback(self._finish_release)

    def _finish_release(self, task: asyncio.Task[None]) -> None:
        self._releases.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            # A claim that cannot be released dies with the worker's connection.
            count_event(self.stats, NEIGHBOUR_BUFFER_CLAIM_ERRORS)
            logger.error("Cannot release page claims", exc_info=error)

    def _start_task(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._finish_task)

    def _finish_task(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        if (error := task.exception()) is not None:
            # The pages stay pending in the database; a later idle flush or crawl retries.
            self._flush_failures += 1
            self._flush_needed = self._flush_failures < MAX_FLUSH_FAILURES
            count_event(self.stats, NEIGHBOUR_BUFFER_FLUSH_ERRORS)
            logger.error("Neighbour buffer flush failed", exc_info=error)
            return
        if not self._tasks and not self._pace_next_flush:
            # Re-injected items end without a response, so Scrapy would notice the spider is
            # idle (and may close, or start the final flush) only at its next 5 s heartbeat.
            self.reinjector.request_idle_check()

    def _require_pages(self) -> PageRepository:
        if self.pages is None:
            raise RuntimeError("NeighbourBufferPipeline used before open_spider()")
        return self.pages

    def _require_writer(self) -> BatchWriter:
        if self.writer is None:
            raise RuntimeError("NeighbourBufferPipeline used before open_spider()")
        return self.writer
