"""PageOwnership: which pages this worker has taken, in its own chain and against other workers.

A page is "in flight" from the moment the buffer or a flush takes it until the chain is done
with it, so that no concurrent flush takes it twice. Claims keep workers sharing one database
off each other's pages (issue #4); they are released once the chain is done with the page.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from newscrawl.pipelines.claim_batching import ClaimBatcher
from newscrawl.pipelines.page_spooling import describe_database_error, is_database_outage
from newscrawl.stats_keys import (
    NEIGHBOUR_BUFFER_CLAIM_ERRORS,
    NEIGHBOUR_BUFFER_PAGES_CLAIMED_ELSEWHERE,
    count_event,
)
from newscrawl.storage.page_claims import PageClaims

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


class PageOwnership:
    """The pages in flight, and the claims held on them while the database is shared."""

    def __init__(
        self, stats: StatsCollector, *, on_left_to_others: Callable[[], None]
    ) -> None:
        self.stats = stats
        # Called when a claim finds pages another worker holds: look again later.
        self.on_left_to_others = on_left_to_others
        self.in_flight: set[int] = set()
        self.claims: PageClaims | None = None
        self._batcher: ClaimBatcher | None = None
        self._claimed: set[int] = set()
        self._releases: set[asyncio.Task[None]] = set()

    def open(self, claims: PageClaims) -> None:
        """Start claiming through `claims` (the database is open)."""
        self.claims = claims
        self._batcher = ClaimBatcher(claims)

    async def wait_for_releases(self) -> None:
        """Return once the releases under way have been sent."""
        if self._releases:
            await asyncio.gather(*self._releases, return_exceptions=True)

    async def close(self) -> None:
        """Release whatever is still claimed."""
        if self.claims is not None:
            # Closing the claims connection releases whatever is still claimed.
            await asyncio.to_thread(self.claims.close)

    async def claim_pages(self, page_ids: list[int]) -> set[int]:
        """Claim pages against other workers; pages another worker holds are left to it."""
        claims, batcher = self.claims, self._batcher
        if claims is None or not claims.is_shared or batcher is None:
            return set(page_ids)
        claimed = await batcher.claim_pages(page_ids)
        if skipped := len(set(page_ids) - claimed):
            count_event(self.stats, NEIGHBOUR_BUFFER_PAGES_CLAIMED_ELSEWHERE, skipped)
            # If that worker dies, its pages are ours to finish.
            self.on_left_to_others()
        return claimed

    def hold_claim(self, page_id: int) -> None:
        """Keep the claim on a page the chain goes on with, until `finish_page`."""
        self._claimed.add(page_id)

    def finish_page(self, page_id: int) -> None:
        """The chain is done with the page: no longer in flight, its claim released."""
        self.in_flight.discard(page_id)
        if page_id in self._claimed:
            self._claimed.discard(page_id)
            self.release_pages([page_id])

    def release_pages(self, page_ids: list[int]) -> None:
        """Release the claims on `page_ids`, in the background."""
        claims, batcher = self.claims, self._batcher
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
            if is_database_outage(error):
                # The crawl stops for the outage and says so once: no traceback here.
                logger.warning("Page claims not released: %s", describe_database_error(error))
                return
            logger.error("Cannot release page claims", exc_info=error)
