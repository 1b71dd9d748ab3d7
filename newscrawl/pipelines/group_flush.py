"""GroupFlusher: sends a group's pending pages back into the chain, with the group's template.

A group is flushed when it fills (its template just learned), and every group still pending
is flushed when the spider goes idle: with a partial template if it has NEWSCRAWL_MIN_NEIGHBOURS
pages, else in single-page mode, so that no fetched page is left unextracted.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from newscrawl.extraction import SiteTemplate
from newscrawl.pipelines.neighbour_settings import NeighbourSettings
from newscrawl.pipelines.page_items import build_page_item
from newscrawl.pipelines.page_ownership import PageOwnership
from newscrawl.pipelines.reinjection import ItemReinjector
from newscrawl.pipelines.template_cache import TemplateCache
from newscrawl.pipelines.template_learning import TemplateLearner
from newscrawl.stats_keys import (
    NEIGHBOUR_BUFFER_GROUPS_FLUSHED_PARTIAL,
    NEIGHBOUR_BUFFER_GROUPS_FLUSHED_SINGLE,
    NEIGHBOUR_BUFFER_REINJECTED_KEYS,
    count_event,
)
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import PendingGroup, StoredPage, TemplateRecord
from newscrawl.storage.retry import run_in_thread_with_retry

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

# Groups the end-of-crawl flush works on at once (their writes share batches).
FINAL_FLUSH_GROUPS = 16


class GroupFlusher:
    """Re-injects the pending pages of groups, each page once per flush."""

    def __init__(
        self,
        *,
        pages: PageRepository,
        writer: BatchWriter,
        learner: TemplateLearner,
        templates: TemplateCache,
        ownership: PageOwnership,
        reinjector: ItemReinjector,
        settings: NeighbourSettings,
        stats: StatsCollector,
    ) -> None:
        self.pages = pages
        # The crawl's batch writer, which stores the re-injected pages' articles.
        self.writer = writer
        self.learner = learner
        self.templates = templates
        self.ownership = ownership
        self.reinjector = reinjector
        self.settings = settings
        self.stats = stats
        # Groups being flushed right now.
        self.flushing: set[str] = set()

    async def flush_pending_groups(self) -> None:
        """Extract every pending page: full or partial template, else single-page mode.

        Groups are flushed FINAL_FLUSH_GROUPS at a time, and their writes wait no
        NEWSCRAWL_WRITE_BATCH_DELAY: the spider is idle, so no other write is coming to share a
        batch with, and a group holds its slot until its pages are stored. Writes arriving while
        a batch commits still share the next one.
        """
        groups = await run_in_thread_with_retry(self.pages.list_pending_groups)
        slots = asyncio.Semaphore(FINAL_FLUSH_GROUPS)

        async def flush(group: PendingGroup) -> None:
            async with slots:
                await self.flush_pending_group(group)

        with self.writer.without_delay():
            results = await asyncio.gather(
                *(flush(group) for group in groups), return_exceptions=True
            )
        # Every group had its go; the first failure makes the flush count as failed (retried).
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def flush_pending_group(self, group: PendingGroup) -> None:
        """Flush one group left pending: with a (partial) template if it can have one."""
        stored = None
        if group.pending >= self.settings.min_neighbours:
            stored = await self.learner.learn_template(
                group.group_key, replaces=None, min_pages=self.settings.min_neighbours
            )
        else:
            stored = await run_in_thread_with_retry(self.pages.get_template, group.group_key)
        template = self.templates.decode(stored) if stored is not None else None
        mode = "neighbours" if template is not None else "single"
        if (
            stored is not None
            and template is not None
            and stored.page_count < self.settings.neighbours
        ):
            count_event(self.stats, NEIGHBOUR_BUFFER_GROUPS_FLUSHED_PARTIAL)
        elif template is None:
            count_event(self.stats, NEIGHBOUR_BUFFER_GROUPS_FLUSHED_SINGLE)
        await self.flush_group(group.group_key, template=template, mode=mode, stored=stored)

    async def flush_group(
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
        in_flight = self.ownership.in_flight
        self.flushing.add(group_key)
        try:
            if template is None and mode == "neighbours":
                stored = await run_in_thread_with_retry(self.pages.get_template, group_key)
                template = self.templates.decode(stored) if stored is not None else None
                mode = "neighbours" if template is not None else "single"
            # The pages the template was learned from are judged against the others only.
            learned_from = (
                await self.learner.list_learned_from(stored) if template is not None else set()
            )
            # Keyset paging: each page once per flush, at a constant cost per batch.
            limit = self.settings.neighbours
            last_id: int | None = None
            while True:
                loaded = await run_in_thread_with_retry(
                    self.pages.load_pending_pages, group_key, after_id=last_id, limit=limit
                )
                if not loaded:
                    return
                last_id = loaded[-1].id
                # A short batch held the group's last pending pages: a page stored after it was
                # read went on with the group's template or waits for the next idle flush
                # (PageAdmitter's on_page_waiting), so asking again would only find none.
                last_batch = len(loaded) < limit
                # Pages in flight (this worker's chain or another flush) are not ours to take.
                batch = [page for page in loaded if page.id not in in_flight]
                if batch and not await self._reinject_batch(
                    batch, template, mode, learned_from
                ):
                    # The crawl is closing: the rest stays pending for the next one.
                    return
                if last_batch:
                    return
        finally:
            self.flushing.discard(group_key)

    async def _reinject_batch(
        self,
        batch: list[StoredPage],
        template: SiteTemplate | None,
        mode: str,
        learned_from: set[int],
    ) -> bool:
        """Claim and re-inject `batch`; False once the crawl is closing."""
        in_flight = self.ownership.in_flight
        # Reserved before the claim is awaited, so that no other flush of this worker takes
        # them meanwhile (advisory locks are re-entrant within one connection).
        in_flight.update(page.id for page in batch)
        claimed = await self.ownership.claim_pages([page.id for page in batch])
        in_flight.difference_update(page.id for page in batch if page.id not in claimed)
        batch = [page for page in batch if page.id in claimed]
        try:
            accepted = await asyncio.gather(
                *(self._reinject(page, template, mode, page.id in learned_from) for page in batch)
            )
        finally:
            self.ownership.release_pages([page.id for page in batch])
        return all(accepted)

    async def _reinject(
        self,
        page: StoredPage,
        template: SiteTemplate | None,
        mode: str,
        template_includes_page: bool = False,
    ) -> bool:
        in_flight = self.ownership.in_flight
        in_flight.add(page.id)
        try:
            item = build_page_item(
                page,
                template=template,
                extraction_mode=mode,
                template_includes_page=template_includes_page,
            )
            accepted = await self.reinjector.reinject(item)
        finally:
            in_flight.discard(page.id)
        if accepted:
            count_event(self.stats, NEIGHBOUR_BUFFER_REINJECTED_KEYS[mode])
        return accepted
