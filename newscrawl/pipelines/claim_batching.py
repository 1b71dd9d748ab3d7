"""ClaimBatcher: the page claims and releases of concurrent items, sent to the database together.

Every page with a template is claimed, and released once stored: on PostgreSQL two round trips
per page on the one claims connection, which the pages of a busy crawl queue for. Claims and
releases asked for while one call runs are sent in the next call, one statement for them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from newscrawl.storage.page_claims import PageClaims
from newscrawl.storage.retry import run_in_thread_with_retry


class ClaimBatcher:
    """Claims and releases pages of `claims` in batches, one database call at a time each."""

    def __init__(self, claims: PageClaims) -> None:
        self.claims = claims
        self._claims: list[tuple[set[int], asyncio.Future[set[int]]]] = []
        self._releases: set[int] = set()
        self._claiming: asyncio.Task[None] | None = None
        self._releasing: asyncio.Task[None] | None = None

    async def claim_pages(self, page_ids: Collection[int]) -> set[int]:
        """Claim `page_ids` with the claims asked for meanwhile; return those this call got."""
        future: asyncio.Future[set[int]] = asyncio.get_running_loop().create_future()
        self._claims.append((set(page_ids), future))
        if self._claiming is None:
            self._claiming = asyncio.ensure_future(self._send_claims())
        return await future

    def release_pages(self, page_ids: Collection[int]) -> asyncio.Task[None]:
        """Release `page_ids` with the other releases asked for meanwhile; the task that does."""
        self._releases.update(page_ids)
        if self._releasing is None:
            self._releasing = asyncio.ensure_future(self._send_releases())
        return self._releasing

    async def _send_claims(self) -> None:
        try:
            while self._claims:
                asked, self._claims = self._claims, []
                try:
                    claimed = await run_in_thread_with_retry(
                        self.claims.claim_pages, set().union(*(ids for ids, _ in asked))
                    )
                except Exception as error:
                    for _, future in asked:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for ids, future in asked:
                    if not future.done():
                        future.set_result(ids & claimed)
        finally:
            self._claiming = None

    async def _send_releases(self) -> None:
        try:
            while self._releases:
                ids, self._releases = self._releases, set()
                await run_in_thread_with_retry(self.claims.release_pages, ids)
        finally:
            self._releasing = None
