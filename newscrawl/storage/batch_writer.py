"""BatchWriter: commits the writes of concurrent coroutines together, one transaction per batch.

A write is a function of a Session (e.g. `write_failed_page`); a BatchedWrite
(storage/batched_write.py: `ArticleWrite`, `AdmissionWrite`) also gets the batch's writes of its
kind first (`prepare_batch(session, writes)`), in the transaction, to read at once what each would
read alone. Writes wait until `batch_size` of them are queued or `delay` seconds after the first
one, then the whole batch runs in a worker thread in one transaction, retried whole on transient
errors (storage/retry.py). On SQLite one batch commits at a time: concurrent transactions of one
process only fight over its single write lock (whose busy handler sleeps); PostgreSQL runs a few
batches side by side. Writes arriving during a commit make the next batch (group commit). Each
caller gets its own write's result only once its batch committed. A batch that fails for another
reason is replayed one write per transaction, so one bad row fails only its own caller; an outage
fails every write of the batch with its error.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from newscrawl.storage.retry import call_with_retry, is_transient_error

T = TypeVar("T")

# Batches committing at once: SQLite has one write lock per file; PostgreSQL works in parallel.
CONCURRENT_BATCHES = {"sqlite": 1}
DEFAULT_CONCURRENT_BATCHES = 4

Write = Callable[[Session], Any]
CommitWrites = Callable[[list[Write]], list[Any]]


@dataclass(frozen=True)
class QueuedWrite:
    """One caller's write, its lock-order key and the future its caller awaits."""

    write: Write
    key: str
    future: asyncio.Future[Any]


class BatchWriter:
    """Groups the writes of concurrent callers into one transaction per batch."""

    def __init__(
        self,
        engine: Engine,
        *,
        batch_size: int = 50,
        delay: float = 0.05,
        guard: Callable[[CommitWrites], CommitWrites] | None = None,
        is_outage: Callable[[BaseException], bool] = is_transient_error,
        on_event: Callable[[str, int], None] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.engine = engine
        self.batch_size = batch_size
        self.delay = max(0.0, delay)
        # Wraps every commit attempt, e.g. to fail at once while the crawl stops for an outage.
        self.guard = guard
        self.is_outage = is_outage
        # Called on the event loop with ("batches", 1), ("batch_rows", n), ("batches_split", 1)
        # and ("delays", 1) each time a first write waits `delay` for company.
        self.on_event = on_event
        self.concurrent_batches = CONCURRENT_BATCHES.get(
            engine.dialect.name, DEFAULT_CONCURRENT_BATCHES
        )
        self._queued: list[QueuedWrite] = []
        self._timer: asyncio.TimerHandle | None = None
        self._committers: set[asyncio.Task[None]] = set()
        # Open `without_delay()` blocks: while any is, no write waits `delay` for company.
        self._undelayed = 0

    async def write(self, write: Callable[[Session], T], *, key: str = "") -> T:
        """Queue `write` and return its result once its batch has committed.

        Writes of one batch run in `key` order, so that concurrent batches (and workers) take
        row locks in one order instead of deadlocking.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queued.append(QueuedWrite(write, key, future))
        if len(self._queued) >= self.batch_size:
            self.flush()
        elif self._timer is None and not self._committers:
            if self._undelayed:
                # Writes queued in this loop turn still share the batch.
                self._timer = loop.call_later(0, self.flush)
            else:
                self._timer = loop.call_later(self.delay, self.flush)
                self._count("delays", 1)
        return cast(T, await future)

    @contextmanager
    def without_delay(self) -> Iterator[None]:
        """Within the block, commit writes without waiting `delay` for more to come.

        For a caller that knows no other writes are coming than those it waits for (the
        end-of-crawl flush): each would wait the delay only to commit with its own few
        neighbours. Writes arriving during a commit still share the next batch.
        """
        self._undelayed += 1
        try:
            if self._timer is not None:
                self.flush()
            yield
        finally:
            self._undelayed -= 1

    def flush(self) -> None:
        """Commit the queued writes now, or as soon as a batch being committed is done."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._queued and len(self._committers) < self.concurrent_batches:
            # Each committer takes one batch now, the rest once it is done.
            batch = self._take_batch()
            committer = asyncio.ensure_future(self._commit_queued(batch))
            self._committers.add(committer)

    async def close(self) -> None:
        """Commit what is queued and wait until every write is committed or failed."""
        self.flush()
        while self._committers:
            await asyncio.wait(list(self._committers))

    def _take_batch(self) -> list[QueuedWrite]:
        batch = self._queued[: self.batch_size]
        del self._queued[: self.batch_size]
        return batch

    async def _commit_queued(self, batch: list[QueuedWrite]) -> None:
        """Commit `batch`, then batch after batch while writes came in meanwhile."""
        try:
            while batch:
                try:
                    await self._commit_batch(batch)
                except Exception as error:
                    # A bug here must not leave the batch's callers waiting forever.
                    for queued in batch:
                        _set_exception(queued.future, error)
                batch = self._take_batch()
        finally:
            self._committers.discard(asyncio.current_task())

    async def _commit_batch(self, batch: list[QueuedWrite]) -> None:
        batch = sorted(batch, key=lambda queued: queued.key)
        self._count("batches", 1)
        self._count("batch_rows", len(batch))
        try:
            results = await self._run_in_thread([queued.write for queued in batch])
        except Exception as error:
            if len(batch) == 1 or self.is_outage(error):
                for queued in batch:
                    _set_exception(queued.future, error)
                return
            # One bad row must not fail its neighbours: replay each write on its own.
            self._count("batches_split", 1)
            for index, queued in enumerate(batch):
                failure = await self._commit_alone(queued)
                if failure is not None and self.is_outage(failure):
                    # The database went away meanwhile: the rest would only wait to fail.
                    for rest in batch[index + 1 :]:
                        _set_exception(rest.future, failure)
                    return
            return
        for queued, result in zip(batch, results, strict=True):
            _set_result(queued.future, result)

    async def _commit_alone(self, queued: QueuedWrite) -> Exception | None:
        """Commit one write in its own transaction; return its error, if any."""
        try:
            (result,) = await self._run_in_thread([queued.write])
        except Exception as error:
            _set_exception(queued.future, error)
            return error
        _set_result(queued.future, result)
        return None

    async def _run_in_thread(self, writes: list[Write]) -> list[Any]:
        commit: CommitWrites = self._commit_writes
        if self.guard is not None:
            commit = self.guard(commit)
        return await asyncio.to_thread(call_with_retry, functools.partial(commit, writes))

    def _commit_writes(self, writes: list[Write]) -> list[Any]:
        """Runs in a worker thread: every write in one transaction."""
        with Session(self.engine) as session, session.begin():
            prepare_batch(session, writes)
            return [write(session) for write in writes]

    def _count(self, event: str, count: int) -> None:
        if self.on_event is not None:
            self.on_event(event, count)


def prepare_batch(session: Session, writes: list[Write]) -> None:
    """Let writes of one kind read together what each would read alone (`prepare_batch`)."""
    kinds: dict[Callable[[Session, list[Any]], None], list[Write]] = {}
    for write in writes:
        prepare = getattr(write, "prepare_batch", None)
        if prepare is not None:
            kinds.setdefault(prepare, []).append(write)
    for prepare, group in kinds.items():
        prepare(session, group)


def _set_result(future: asyncio.Future[Any], result: Any) -> None:
    # A caller cancelled meanwhile (e.g. the crawl is closing) no longer waits for it.
    if not future.done():
        future.set_result(result)


def _set_exception(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
