"""CrawlRunsExtension: one `crawl_runs` row per crawl, with its final stats."""

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
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from newscrawl.pipelines.page_spooling import describe_database_error
from newscrawl.storage.crawl_run_repository import CrawlRunRepository
from newscrawl.storage.migrations import open_database
from newscrawl.storage.retry import is_transient_error, run_in_thread_with_retry

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

    def __init__(self, database_url: str, stats: StatsCollector, *, migrate: bool = True) -> None:
        self.database_url = database_url
        self.stats = stats
        self.migrate = migrate
        self.engine: Engine | None = None
        self.run_id: int | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool("NEWSCRAWL_CRAWL_RUNS_ENABLED", True):
            raise NotConfigured("crawl_runs recording is off (NEWSCRAWL_CRAWL_RUNS_ENABLED)")
        assert crawler.stats is not None
        extension = cls(
            settings.get("NEWSCRAWL_DATABASE_URL", "sqlite:///newscrawl.db"),
            crawler.stats,
            migrate=settings.getbool("NEWSCRAWL_MIGRATE_ON_START", True),
        )
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    async def spider_opened(self, spider: Spider) -> None:
        try:
            self.engine = await asyncio.to_thread(
                open_database, self.database_url, migrate=self.migrate
            )
            self.run_id = await run_in_thread_with_retry(
                CrawlRunRepository(self.engine).start_run,
                spider=spider.name,
                worker=f"{socket.gethostname()}:{os.getpid()}",
                started_at=datetime.now(UTC),
            )
        except DBAPIError as error:
            if not is_transient_error(error):
                raise
            # The pipelines stop the crawl and say why; this run just goes unrecorded.
            logger.warning("Crawl run not recorded: %s", describe_database_error(error))

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.engine is None or self.run_id is None:
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
            if not is_transient_error(error):
                raise
            # Bookkeeping only: the crawl's pages are safe, so this must not fail the close.
            logger.error(
                "Crawl run %d not finished in crawl_runs: %s",
                self.run_id, describe_database_error(error),
            )
        finally:
            self.engine.dispose()
