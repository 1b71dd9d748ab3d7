"""PageAdmitter: stores each fetched page (pending) and decides whether it goes on now.

A page whose group has a fresh template goes on with it, claimed; any other page waits in the
database for its neighbours (PageBuffered). The page that fills its group has the template
learned and starts the flush of the pages that waited.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from newscrawl.extraction import SiteTemplate
from newscrawl.items import PageItem
from newscrawl.pipelines.errors import PageBuffered, PageExtractionFailed, PageKeptPending
from newscrawl.pipelines.neighbour_settings import NeighbourSettings
from newscrawl.pipelines.page_items import build_page_record
from newscrawl.pipelines.page_ownership import PageOwnership
from newscrawl.pipelines.page_spooling import (
    PageSpooler,
    describe_database_error,
    is_database_outage,
)
from newscrawl.pipelines.template_cache import TemplateCache
from newscrawl.pipelines.template_learning import TemplateLearner
from newscrawl.stats_keys import (
    NEIGHBOUR_BUFFER_PAGES_BUFFERED,
    NEIGHBOUR_BUFFER_PAGES_STORED,
    NEIGHBOUR_BUFFER_PAGES_WITH_TEMPLATE,
    NEIGHBOUR_BUFFER_STORAGE_ERRORS,
    NEIGHBOUR_BUFFER_TEMPLATES_STALE,
    count_event,
)
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.page_repository import (
    AdmissionWrite,
    PageRepository,
    write_failed_page,
)
from newscrawl.storage.records import Admission, PageRecord, TemplateRecord
from newscrawl.storage.retry import run_in_thread_with_retry

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


class PageAdmitter:
    """Stores pages as they come and lets through those whose group has a template."""

    def __init__(
        self,
        *,
        pages: PageRepository,
        writer: BatchWriter,
        spooler: PageSpooler | None,
        learner: TemplateLearner,
        templates: TemplateCache,
        ownership: PageOwnership,
        settings: NeighbourSettings,
        stats: StatsCollector,
        is_flushing: Callable[[str], bool],
        start_group_flush: Callable[[str], None],
        on_page_waiting: Callable[[], None],
    ) -> None:
        self.pages = pages
        self.writer = writer
        # Where fetched pages go when the database cannot take them (issue #5).
        self.spooler = spooler
        self.learner = learner
        self.templates = templates
        self.ownership = ownership
        self.settings = settings
        self.stats = stats
        self.is_flushing = is_flushing
        self.start_group_flush = start_group_flush
        # Called when a page is left waiting: the next idle flush has work.
        self.on_page_waiting = on_page_waiting

    async def admit_page(self, item: PageItem) -> PageItem:
        """Store the page; the item with its template, or PageBuffered while it waits."""
        record = build_page_record(item)
        admission = await self._store_page(item, record)
        item.page_id = admission.page_id
        count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_STORED)
        in_flight = self.ownership.in_flight
        if admission.page_id in in_flight:
            # A group flush loaded the page the moment it was stored and re-injected it.
            raise PageBuffered(f"{item.url} is already re-injected by a group flush")
        # Still "pending" in the database until stored: concurrent flushes must not take it.
        in_flight.add(admission.page_id)
        try:
            return await self._send_on_page(item, record, admission)
        except Exception as error:
            if self.spooler is None or not is_database_outage(error):
                raise
            # Stored already: the page stays pending for the next crawl, and the crawl stops
            # (one ERROR line) instead of Scrapy logging a traceback per item.
            in_flight.discard(admission.page_id)
            self.spooler.stop_crawl(error)
            raise PageKeptPending(
                f"{item.url}: the database is unavailable; page {admission.page_id} stays pending"
            ) from error

    async def _send_on_page(
        self, item: PageItem, record: PageRecord, admission: Admission
    ) -> PageItem:
        """The item with its group's template, claimed; PageBuffered while it waits."""
        in_flight = self.ownership.in_flight
        stored, template = await self._choose_template(record, admission)
        if template is None:
            in_flight.discard(admission.page_id)
            self.on_page_waiting()
            count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_BUFFERED)
            raise PageBuffered(
                f"waiting for neighbours in {record.group_key!r}"
                f" ({admission.pending_in_group}/{self.settings.neighbours} pages)"
            )
        if not await self.ownership.claim_pages([admission.page_id]):
            in_flight.discard(admission.page_id)
            raise PageBuffered(f"{item.url} is being extracted by another worker")
        self.ownership.hold_claim(admission.page_id)
        item.template = template
        # The page that filled its group is one the template was learned from.
        item.template_includes_page = admission.page_id in await self.learner.list_learned_from(
            stored, admission.page_id
        )
        item.extraction_mode = "neighbours"
        count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_WITH_TEMPLATE)
        return item

    async def _store_page(self, item: PageItem, record: PageRecord) -> Admission:
        """Write the page (pending); a refused row fails this page, an outage spools it."""
        settings = self.settings
        try:
            return await self.writer.write(
                AdmissionWrite(
                    record,
                    count_limit=max(settings.template_max_pages, settings.neighbours),
                    # Read in the writer's thread: a key seen there skips loading the blob.
                    known_templates=self.templates.keys(),
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
                await self._record_failed_page(record, error)
                raise PageExtractionFailed(f"{item.url}: storage error") from error
            if self.spooler is None:
                raise
            await self.spooler.spool_page(item, error)

    async def _choose_template(
        self, record: PageRecord, admission: Admission
    ) -> tuple[TemplateRecord | None, SiteTemplate | None]:
        """The group's template for this page, stored and decoded: as it was, re-learned when
        stale, or learned now that the page fills the group (which flushes those that waited)."""
        stored = admission.template
        if stored is not None and stored.template is None and stored.key not in self.templates:
            # The decoded copy was evicted after the admission skipped the blob: load it.
            stored = await run_in_thread_with_retry(self.pages.get_template, record.group_key)
        template = self.templates.decode(stored) if stored is not None else None
        if stored is not None and (template is None or self.learner.is_stale(stored, admission)):
            count_event(self.stats, NEIGHBOUR_BUFFER_TEMPLATES_STALE)
            stored = await self.learner.learn_template(
                record.group_key, replaces=stored.learned_at
            )
            template = self.templates.decode(stored) if stored is not None else None
        elif stored is None and admission.pending_in_group >= self.settings.neighbours:
            stored = await self.learner.learn_template(record.group_key, replaces=None)
            template = self.templates.decode(stored) if stored is not None else None
            if template is not None and not self.is_flushing(record.group_key):
                self.start_group_flush(record.group_key)
        return stored, template

    async def _record_failed_page(self, record: PageRecord, error: BaseException) -> None:
        """Store the refused page as failed with the reason, so that it is not silently lost."""
        reason = f"storage error: {describe_database_error(error)}"
        try:
            await self.writer.write(
                partial(write_failed_page, reason=reason, page_id=None, page=record),
                key=f"{record.site}\n{record.url}",
            )
        except Exception:
            logger.error("Cannot mark %s failed either", record.url, exc_info=True)
