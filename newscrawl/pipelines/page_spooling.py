"""PageSpooler: keeps fetched pages the database cannot take, and stops the crawl cleanly.

When a write still fails after its retries (newscrawl/storage/retry.py), the page goes to a
durable local spool (NEWSCRAWL_SPOOL_DIR) instead of being lost, and the crawl is closed
with the reason `database_unavailable`. The next crawl on the same database writes the
spooled pages into `pages` (pending) before it takes new ones.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, ParamSpec, TypeVar

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector
from scrapy.utils.defer import deferred_from_coro
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from twisted.internet.defer import Deferred

from newscrawl import settings as project_settings
from newscrawl.items import PageItem
from newscrawl.pipelines.errors import PageSpooled
from newscrawl.pipelines.page_items import build_page_record
from newscrawl.stats_keys import (
    SPOOL_CRAWL_STOPPED,
    SPOOL_DAMAGED,
    SPOOL_REPLAYED,
    SPOOL_SPOOLED,
    count_event,
)
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import PageRecord
from newscrawl.storage.retry import is_transient_error, run_in_thread_with_retry
from newscrawl.storage.spool import PageSpool, SpoolEntryError, build_spool_directory

logger = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

CLOSE_REASON = "database_unavailable"
DEFAULT_SPOOL_DIRNAME = ".newscrawl-spool"
SQLITE_READONLY = 8


def resolve_spool_base(spool_dir: str | None, database_url: str) -> Path:
    """NEWSCRAWL_SPOOL_DIR, else `.newscrawl-spool` next to the SQLite file or in the cwd."""
    if spool_dir:
        return Path(spool_dir)
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(str(url.database)).resolve().parent / DEFAULT_SPOOL_DIRNAME
    return Path.cwd() / DEFAULT_SPOOL_DIRNAME


class DatabaseUnavailableError(Exception):
    """The crawl is stopping for a database outage: writes fail at once instead of retrying."""


def is_database_outage(error: BaseException) -> bool:
    """A lost, unreachable or read-only database, as opposed to bad data or a bug."""
    if isinstance(error, DatabaseUnavailableError):
        return True
    if not isinstance(error, DBAPIError):
        return False
    return is_transient_error(error) or is_read_only_error(error)


def is_read_only_error(error: DBAPIError) -> bool:
    """A database that takes no writes: a read-only SQLite file, a read-only PostgreSQL.

    No retry helps, yet the pages are fine: like an outage, they wait in the spool.
    """
    if isinstance(error.orig, sqlite3.Error):
        code = getattr(error.orig, "sqlite_errorcode", None)
        if code is not None:
            return (code & 0xFF) == SQLITE_READONLY
        return "readonly database" in str(error.orig)
    # SQLSTATE 25006, read_only_sql_transaction: a standby, default_transaction_read_only.
    return getattr(error.orig, "sqlstate", None) == "25006"


class PageSpooler:
    """The boundary between a database outage and the crawl: spool, stop, replay."""

    def __init__(self, *, spool: PageSpool, stats: StatsCollector, crawler: Crawler) -> None:
        self.spool = spool
        self.stats = stats
        self.crawler = crawler
        self._closing: Deferred[None] | None = None
        # Closing before spider_opened would run the close handlers of a crawl that never
        # started (CoreStats has no start time yet), so a stop asked for earlier waits.
        self._spider_opened = False
        self._close_pending = False
        # The crawl's one spooler (CrawlStore) holds the stop; the stats only count it.
        self._stopping = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageSpooler:
        settings = crawler.settings
        database_url = project_settings.read_database_url(settings)
        spool_dir = settings.get("NEWSCRAWL_SPOOL_DIR", project_settings.NEWSCRAWL_SPOOL_DIR)
        base = resolve_spool_base(spool_dir, database_url)
        assert crawler.stats is not None
        spooler = cls(
            spool=PageSpool(build_spool_directory(base, database_url)),
            stats=crawler.stats,
            crawler=crawler,
        )
        crawler.signals.connect(spooler.on_spider_opened, signal=signals.spider_opened)
        return spooler

    def on_spider_opened(self) -> None:
        """Close the spider now if the database failed while the crawl was opening."""
        self._spider_opened = True
        if self._close_pending:
            self._close_spider()

    @property
    def is_stopping(self) -> bool:
        """True once the crawl is being stopped for a database outage."""
        return self._stopping

    def unless_stopping(self, function: Callable[P, T]) -> Callable[P, T]:
        """`function`, failing at once once the crawl is stopping for an outage.

        Checked on every retry attempt, so that writes already waiting on the dead database
        give up instead of holding the close for their whole backoff.
        """

        @functools.wraps(function)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
            if self.is_stopping:
                raise DatabaseUnavailableError("the crawl is stopping: the database is down")
            try:
                return function(*args, **kwargs)
            except DBAPIError as error:
                # An attempt already under way when the crawl began to stop: not retried
                # (nor logged as about to be), the outage is known and said once.
                if self.is_stopping and is_database_outage(error):
                    raise DatabaseUnavailableError(describe_database_error(error)) from error
                raise

        return guarded

    async def spool_page(self, item: PageItem, error: BaseException) -> NoReturn:
        """Keep the page on disk, stop the crawl, and take the item out of the chain."""
        self.stop_crawl(error)
        # Written on the reactor thread (one small file, a few ms): the worker threads may
        # all be busy retrying writes against the same dead database.
        path = self.spool.spool_page(build_page_record(item))
        count_event(self.stats, SPOOL_SPOOLED)
        raise PageSpooled(f"{item.url}: the database is unavailable, kept in {path}")

    def stop_crawl(self, error: BaseException) -> None:
        """Close the spider once, saying why; later failures only spool."""
        if self._stopping:
            return
        self._stopping = True
        count_event(self.stats, SPOOL_CRAWL_STOPPED)
        logger.error(
            "Database unavailable, stopping the crawl (%s): %s. Fetched pages the database"
            " could not take are kept in %s and written by the next crawl.",
            CLOSE_REASON, describe_database_error(error), self.spool.directory,
        )
        if self._spider_opened:
            self._close_spider()
        else:
            self._close_pending = True

    def _close_spider(self) -> None:
        self._close_pending = False
        engine = self.crawler.engine
        if engine is not None:
            self._closing = deferred_from_coro(engine.close_spider_async(reason=CLOSE_REASON))
            self._closing.addErrback(
                lambda failure: logger.error("Cannot close the spider: %s", failure.value)
            )

    async def replay_pages(self, pages: PageRepository) -> int:
        """Write every spooled page into `pages` (pending), removing each once it is stored."""
        replayed = 0
        for path in await asyncio.to_thread(self.spool.list_entries):
            try:
                spooled = await asyncio.to_thread(self.spool.read_entry, path)
            except (SpoolEntryError, OSError) as error:
                kept = await asyncio.to_thread(self.spool.set_aside_entry, path)
                count_event(self.stats, SPOOL_DAMAGED)
                logger.error("Cannot replay spooled page %s (%s); kept as %s", path, error, kept)
                continue
            await run_in_thread_with_retry(_store_pending_page, pages, spooled.record)
            await asyncio.to_thread(self.spool.remove_entry, path)
            replayed += 1
            count_event(self.stats, SPOOL_REPLAYED)
        if replayed:
            logger.info(
                "Replayed %d spooled page(s) from %s into the database", replayed,
                self.spool.directory,
            )
        return replayed


def _store_pending_page(pages: PageRepository, record: PageRecord) -> int:
    return pages.store_page(record, status="pending")


def describe_database_error(error: BaseException) -> str:
    """The driver's message without SQLAlchemy's background link, on one line."""
    message = str(getattr(error, "orig", None) or error)
    return " ".join(message.split())
