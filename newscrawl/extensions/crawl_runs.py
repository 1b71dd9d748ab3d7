"""CrawlRunsExtension: one `crawl_runs` row per crawl, with its heartbeat and final stats.

A crawl starting first closes the runs that died without finishing (killed, power cut) as
`interrupted`; `newscrawl status` shows them so without writing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from datetime import UTC, date, datetime
from typing import Any, Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector
from scrapy.utils.defer import deferred_from_coro
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from twisted.internet.task import LoopingCall

from newscrawl import settings as project_settings
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.page_spooling import (
    DatabaseUnavailableError,
    PageSpooler,
    describe_database_error,
    is_database_outage,
)
from newscrawl.storage.crawl_run_repository import (
    HEARTBEAT_INTERVAL,
    CrawlRunRepository,
    build_worker_name,
)
from newscrawl.storage.retry import run_in_thread_with_retry

logger = logging.getLogger(__name__)


def build_json_stats(stats: dict[str, Any]) -> dict[str, Any]:
    """Scrapy stats as JSON-safe values (timestamps become ISO 8601 strings)."""
    safe: dict[str, Any] = {}
    for key, value in stats.items():
        if isinstance(value, datetime | date):
            safe[key] = value.isoformat()
        elif value is None or isinstance(value, bool | int | float | str):
            safe[key] = value
        else:
            safe[key] = str(value)
    return safe


class CrawlRunsExtension:
    """Records start, end, finish reason and stats of every crawl in the database."""

    def __init__(self, store: CrawlStore, stats: StatsCollector) -> None:
        # The crawl's one engine, shared with the pipelines.
        self.store = store
        self.stats = stats
        # Tells when the crawl is stopping for a database outage (no bookkeeping retries).
        self.spooler: PageSpooler | None = store.spooler
        self.engine: Engine | None = None
        self.run_id: int | None = None
        self._heartbeat: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool(
            "NEWSCRAWL_CRAWL_RUNS_ENABLED", project_settings.NEWSCRAWL_CRAWL_RUNS_ENABLED
        ):
            raise NotConfigured("crawl_runs recording is off (NEWSCRAWL_CRAWL_RUNS_ENABLED)")
        assert crawler.stats is not None
        extension = cls(CrawlStore.from_crawler(crawler), crawler.stats)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    async def spider_opened(self, spider: Spider) -> None:
        if self.spooler is not None and self.spooler.is_stopping:
            return  # the database already failed: no retries for bookkeeping
        guard = self.spooler.unless_stopping if self.spooler is not None else None
        try:
            self.engine = await self.store.open()
            runs = CrawlRunRepository(self.engine)
            mark_interrupted, start_run = runs.mark_interrupted_runs, runs.start_run
            if guard is not None:
                mark_interrupted, start_run = guard(mark_interrupted), guard(start_run)
            host = socket.gethostname()
            interrupted = await run_in_thread_with_retry(
                mark_interrupted, now=datetime.now(UTC), host=host
            )
            if interrupted:
                logger.warning(
                    "Crawl run(s) %s did not finish (killed?): marked interrupted",
                    ", ".join(map(str, interrupted)),
                )
            self.run_id = await run_in_thread_with_retry(
                start_run,
                spider=spider.name,
                worker=build_worker_name(host, os.getpid()),
                started_at=datetime.now(UTC),
            )
        except (DBAPIError, DatabaseUnavailableError) as error:
            if not is_database_outage(error):
                raise
            # The pipelines stop the crawl and say why; this run just goes unrecorded.
            logger.warning("Crawl run not recorded: %s", describe_database_error(error))
            return
        self._heartbeat = LoopingCall(self._beat)
        self._heartbeat.start(HEARTBEAT_INTERVAL.total_seconds(), now=False)

    def _beat(self) -> Any:
        """Write the heartbeat in a thread; a failed beat is only logged (bookkeeping)."""
        if self.engine is None or self.run_id is None:
            return None
        return deferred_from_coro(self._write_heartbeat(self.engine, self.run_id))

    async def _write_heartbeat(self, engine: Engine, run_id: int) -> None:
        try:
            await asyncio.to_thread(
                CrawlRunRepository(engine).record_heartbeat, run_id, now=datetime.now(UTC)
            )
        except (DBAPIError, DatabaseUnavailableError) as error:
            logger.warning(
                "Crawl run %d heartbeat not written: %s", run_id, describe_database_error(error)
            )

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()
        if self.engine is None:
            return
        try:
            await self._finish_run(reason)
        finally:
            await self.store.close()

    async def _finish_run(self, reason: str) -> None:
        if self.engine is None or self.run_id is None:
            return
        if self.spooler is not None and self.spooler.is_stopping:
            # The crawl stopped because the database is down: retrying here would only
            # hold the exit for the whole backoff. The run stays without a finish time.
            logger.info("Crawl run %d not finished in crawl_runs: database down", self.run_id)
            return
        try:
            await run_in_thread_with_retry(
                CrawlRunRepository(self.engine).finish_run,
                self.run_id,
                finished_at=datetime.now(UTC),
                reason=reason,
                stats=build_json_stats(self.stats.get_stats()),
            )
        except DBAPIError as error:
            if not is_database_outage(error):
                raise
            # Bookkeeping only: the crawl's pages are safe, so this must not fail the close.
            logger.error(
                "Crawl run %d not finished in crawl_runs: %s",
                self.run_id, describe_database_error(error),
            )
