"""BackgroundTasks: coroutines started without a caller to await them, kept until they end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


class BackgroundTasks:
    """The running tasks of one component; each end is reported to `on_error` or `on_success`."""

    def __init__(
        self,
        *,
        on_error: Callable[[BaseException], None],
        on_success: Callable[[], None] | None = None,
    ) -> None:
        self.on_error = on_error
        self.on_success = on_success
        self._tasks: set[asyncio.Task[Any]] = set()

    def __bool__(self) -> bool:
        return bool(self._tasks)

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run `coroutine` as a task, kept (not garbage-collected) until it ends."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._finish_task)

    def forget_done(self) -> None:
        """Drop tasks that ended but whose done-callback has not run yet."""
        self._tasks = {task for task in self._tasks if not task.done()}

    async def wait_all(self) -> None:
        """Return once every task started so far (and any they started) has ended."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def cancel_all(self) -> None:
        """Cancel every task and wait for them to end."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _finish_task(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        if (error := task.exception()) is not None:
            self.on_error(error)
        elif self.on_success is not None:
            self.on_success()
