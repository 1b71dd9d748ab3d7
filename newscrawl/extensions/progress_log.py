"""ProgressLogExtension: a periodic log line with pages, articles, pending neighbours, due feeds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine

from newscrawl.stats_keys import build_stats_key
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.page_repository import PageRepository

logger = logging.getLogger(__name__)

# Groups named in the log line; the rest are summed, to keep it one line on big crawls.
LOGGED_GROUPS = 5


def format_progress(
    stats: dict[str, object], pending: dict[str, int], feeds_due: int | None = None
) -> str:
    """One progress line from the crawl stats, the pending pages per group and the due feeds."""
    fetched = stats.get("response_received_count", 0)
    stored = stats.get(build_stats_key("sql_storage", "articles_stored"), 0)
    biggest = sorted(pending.items(), key=lambda entry: (-entry[1], entry[0]))
    shown = ", ".join(f"{group}={count}" for group, count in biggest[:LOGGED_GROUPS])
    rest = sum(count for _, count in biggest[LOGGED_GROUPS:])
    if rest:
        shown += f", {len(biggest) - LOGGED_GROUPS} more groups={rest}"
    return (
        f"Progress: {fetched} pages fetched, {stored} articles stored,"
        f" {sum(pending.values())} pages pending in {len(pending)} groups"
        + (f" ({shown})" if shown else "")
        + (f", {feeds_due} feeds due" if feeds_due is not None else "")
    )


class ProgressLogExtension:
    """Logs progress every NEWSCRAWL_PROGRESS_INTERVAL seconds."""

    def __init__(self, database_url: str, stats: StatsCollector, interval: float) -> None:
        self.database_url = database_url
        self.stats = stats
        self.interval = interval
        self.engine: Engine | None = None
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        interval = crawler.settings.getfloat("NEWSCRAWL_PROGRESS_INTERVAL", 60.0)
        if interval <= 0:
            raise NotConfigured("progress logging is off (NEWSCRAWL_PROGRESS_INTERVAL <= 0)")
        assert crawler.stats is not None
        extension = cls(
            crawler.settings.get("NEWSCRAWL_DATABASE_URL", "sqlite:///newscrawl.db"),
            crawler.stats,
            interval,
        )
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self, spider: Spider) -> None:
        self.engine = create_database_engine(self.database_url)
        self.task = asyncio.ensure_future(self._log_periodically())

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.engine is not None:
            self.engine.dispose()

    async def log_progress(self) -> None:
        """Log one progress line; a database hiccup only costs the pending counts."""
        pending: dict[str, int] = {}
        feeds_due: int | None = None
        if self.engine is not None:
            try:
                pending = await asyncio.to_thread(PageRepository(self.engine).count_pending_pages)
                feeds_due = await asyncio.to_thread(
                    FeedRepository(self.engine).count_due_feeds, datetime.now(UTC)
                )
            except Exception as exc:
                logger.warning("Cannot count pending pages and due feeds: %s", exc)
        logger.info(format_progress(self.stats.get_stats(), pending, feeds_due))

    async def _log_periodically(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.log_progress()
