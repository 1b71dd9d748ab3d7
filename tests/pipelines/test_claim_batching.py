"""Claims and releases of concurrent items reach the database together, each caller gets its own."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Collection

from newscrawl.pipelines.claim_batching import ClaimBatcher


class RecordingClaims:
    """Page claims held in memory, taking a moment per call as a database round trip does."""

    is_shared = True

    def __init__(self, taken_elsewhere: set[int]) -> None:
        self.taken_elsewhere = taken_elsewhere
        self.held: set[int] = set()
        self.claim_calls: list[set[int]] = []
        self.release_calls: list[set[int]] = []
        self._lock = threading.Lock()

    def claim_pages(self, page_ids: Collection[int]) -> set[int]:
        time.sleep(0.02)
        with self._lock:
            self.claim_calls.append(set(page_ids))
            claimed = set(page_ids) - self.taken_elsewhere - self.held
            self.held |= claimed
        return claimed

    def release_pages(self, page_ids: Collection[int]) -> None:
        time.sleep(0.02)
        with self._lock:
            self.release_calls.append(set(page_ids))
            self.held -= set(page_ids)

    def close(self) -> None:
        self.held.clear()


def test_concurrent_claims_share_calls_and_each_caller_gets_its_pages() -> None:
    claims = RecordingClaims(taken_elsewhere={3, 7})
    batcher = ClaimBatcher(claims)

    async def main() -> list[set[int]]:
        return await asyncio.gather(*(batcher.claim_pages([n]) for n in range(20)))

    results = asyncio.run(main())
    assert results == [set() if n in {3, 7} else {n} for n in range(20)]
    # The first call goes alone; everything asked meanwhile goes in the next.
    assert len(claims.claim_calls) < 5
    assert set().union(*claims.claim_calls) == set(range(20))


def test_releases_asked_meanwhile_share_one_call() -> None:
    claims = RecordingClaims(taken_elsewhere=set())
    batcher = ClaimBatcher(claims)

    async def main() -> None:
        await batcher.claim_pages(range(10))
        tasks = {batcher.release_pages([n]) for n in range(10)}
        await asyncio.gather(*tasks)

    asyncio.run(main())
    assert claims.held == set()
    assert len(claims.release_calls) < 5
    assert set().union(*claims.release_calls) == set(range(10))
