"""A process pool for page extraction that survives dying workers and drains before shutdown."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from newscrawl.pipelines.extraction_pool_worker import (
    ExtractionJob,
    ExtractionOutcome,
    extract_page_job,
    prepare_worker,
    warm_up_worker,
)

ExtractionTask = Callable[[ExtractionJob], ExtractionOutcome]


class WorkerCrashedError(RuntimeError):
    """The page's worker died twice (segfault, OOM kill): the page cannot be extracted."""


class PoolClosedError(RuntimeError):
    """A page reached the pool before it started or after it closed."""


def choose_start_method() -> str:
    """forkserver where there is one, else spawn: never fork a process running a reactor."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


class ExtractionPool:
    """`workers` extraction processes that survive a worker dying on a hostile page.

    A dying worker breaks the whole ProcessPoolExecutor and fails every page in flight with
    BrokenProcessPool, not only the page that killed it. The pool is replaced and each of
    those pages is tried once more, alone, in a one-worker quarantine executor: the innocent
    ones then succeed, and the hostile one, which kills its worker again, fails with
    WorkerCrashedError without taking other pages down with it.
    """

    def __init__(
        self,
        workers: int,
        *,
        task: ExtractionTask = extract_page_job,
        on_crash: Callable[[], None] = lambda: None,
        start_method: str | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"an extraction pool needs at least one worker, not {workers}")
        self.workers = workers
        self.task = task
        # Called on the event loop once per broken executor (that is, per dead worker).
        self.on_crash = on_crash
        self.start_method = start_method or choose_start_method()
        self.executor: ProcessPoolExecutor | None = None
        # Created on the first crash; retries run in it one at a time.
        self.quarantine: ProcessPoolExecutor | None = None
        self.quarantine_lock = asyncio.Lock()
        # Pages between run() and its answer, retries included; close() waits for none.
        self.pages_in_flight = 0
        self.idle = asyncio.Event()
        self.idle.set()

    def start(self) -> None:
        """Create the executor and start its worker processes now, in the background.

        A worker's first start is slow (the forkserver imports the crawl's main module, the
        worker the extraction core): started with the crawl, it overlaps the downloads instead
        of delaying the first page, or, when every page waits for the final flush, the end.
        """
        self.executor = self._create_executor(self.workers)
        # forkserver and spawn start a worker per submitted task while none is idle.
        for _ in range(self.workers):
            self.executor.submit(warm_up_worker)

    def _create_executor(self, workers: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(self.start_method),
            initializer=prepare_worker,
            initargs=(os.getpid(),),
        )

    async def run(self, job: ExtractionJob) -> ExtractionOutcome:
        """Extract one page in a worker; raise WorkerCrashedError when it kills its worker."""
        executor = self._require_executor()
        self.pages_in_flight += 1
        self.idle.clear()
        try:
            try:
                return await self._submit(executor, job)
            except BrokenProcessPool:
                self._replace_broken(executor)
            return await self._run_quarantined(job)
        finally:
            self.pages_in_flight -= 1
            if not self.pages_in_flight:
                self.idle.set()

    async def _run_quarantined(self, job: ExtractionJob) -> ExtractionOutcome:
        """Retry a page that was in flight when a worker died, with no other page beside it."""
        async with self.quarantine_lock:
            if self.quarantine is None:
                self.quarantine = self._create_executor(1)
            quarantine = self.quarantine
            try:
                return await self._submit(quarantine, job)
            except BrokenProcessPool as error:
                quarantine.shutdown(wait=False, cancel_futures=True)
                self.quarantine = None
                self.on_crash()
                raise WorkerCrashedError(str(error) or "worker process died") from error

    async def _submit(self, executor: ProcessPoolExecutor, job: ExtractionJob) -> ExtractionOutcome:
        # submit() itself raises BrokenProcessPool once the executor knows it is broken.
        future: Future[ExtractionOutcome] = executor.submit(self.task, job)
        return await asyncio.wrap_future(future)

    def _replace_broken(self, broken: ProcessPoolExecutor) -> None:
        """Swap in a new executor, once per broken one however many pages saw it break."""
        if self.executor is not broken:
            return
        broken.shutdown(wait=False, cancel_futures=True)
        self.executor = self._create_executor(self.workers)
        self.on_crash()

    async def close(self) -> None:
        """Let the pages in flight finish, then stop the worker processes."""
        await self.idle.wait()
        executors = [self.executor, self.quarantine]
        self.executor = self.quarantine = None
        for executor in executors:
            if executor is not None:
                await asyncio.to_thread(executor.shutdown, wait=True)

    def _require_executor(self) -> ProcessPoolExecutor:
        if self.executor is None:
            raise PoolClosedError("ExtractionPool used before start() or after close()")
        return self.executor
