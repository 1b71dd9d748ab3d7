"""CrawlStore: the crawl's one database, shared by every component that writes or reads it.

One per crawler: the engine (created, and migrated, once), the batch writer that commits the
pipelines' writes together, and the page spooler that keeps pages through an outage. The
pipelines, extensions and spiders each `open()` it when they start and `close()` it when they
stop; the first open creates and migrates the engine, the last close disposes of it.
"""

from __future__ import annotations

import asyncio
import weakref
from functools import partial
from typing import Any

from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine, event
from sqlalchemy.engine import ExceptionContext

from newscrawl import settings as project_settings
from newscrawl.pipelines.page_spooling import (
    DatabaseUnavailableError,
    PageSpooler,
    describe_database_error,
    is_database_outage,
)
from newscrawl.pipelines.write_batching import (
    WriteBatching,
    build_batch_writer,
    read_write_batching,
)
from newscrawl.stats_keys import STORE_EVENT_KEYS
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.migrations import open_database

_STORES: weakref.WeakKeyDictionary[Crawler, CrawlStore] = weakref.WeakKeyDictionary()


class CrawlStore:
    """The engine, batch writer and spooler of one crawl, opened once and shared."""

    def __init__(
        self,
        *,
        database_url: str,
        stats: StatsCollector,
        spooler: PageSpooler,
        migrate: bool = True,
        batching: WriteBatching | None = None,
    ) -> None:
        self.database_url = database_url
        self.stats = stats
        self.spooler = spooler
        self.migrate = migrate
        self.batching = batching or WriteBatching()
        self.engine: Engine | None = None
        self.writer: BatchWriter | None = None
        self._opening: asyncio.Future[Engine] | None = None
        self._users = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlStore:
        """The crawler's store, built by whichever component asks first."""
        store = _STORES.get(crawler)
        if store is None:
            settings = crawler.settings
            assert crawler.stats is not None
            store = cls(
                database_url=project_settings.read_database_url(settings),
                stats=crawler.stats,
                spooler=PageSpooler.from_crawler(crawler),
                migrate=settings.getbool(
                    "NEWSCRAWL_MIGRATE_ON_START", project_settings.NEWSCRAWL_MIGRATE_ON_START
                ),
                batching=read_write_batching(settings),
            )
            _STORES[crawler] = store
        return store

    async def open(self) -> Engine:
        """The migrated engine; the first caller creates it, later ones share it (or its error).

        Every successful open is matched by one `close()`.
        """
        if self._opening is None:
            self._opening = asyncio.ensure_future(self._open_engine())
        # Shielded: one caller cancelled must not cancel the open the others wait for.
        engine = await asyncio.shield(self._opening)
        self._users += 1
        return engine

    async def _open_engine(self) -> Engine:
        # Guarded, so that the retries end at once when the crawl stops for an outage.
        engine = await asyncio.to_thread(
            partial(
                open_database,
                self.database_url,
                migrate=self.migrate,
                guard=self.spooler.unless_stopping,
            )
        )
        event.listen(engine, "do_connect", self._connect_unless_stopping)
        event.listen(engine, "handle_error", self._raise_once_stopping)
        self.engine = engine
        self.writer = build_batch_writer(
            engine,
            self.batching,
            spooler=self.spooler,
            stats=self.stats,
            event_keys=STORE_EVENT_KEYS,
        )
        return engine

    def _connect_unless_stopping(
        self, dialect: Any, _record: object, cargs: Any, cparams: Any
    ) -> Any:
        """Connect for the pool; once the crawl stops for an outage, fail at once instead.

        Not every caller's retries are guarded (feed state, templates, claims): this way a
        retry waiting in a worker thread neither tries the dead database again nor logs
        another attempt once the crawl is closing. DatabaseUnavailableError is no DBAPIError,
        so no retry takes it up.
        """
        if self.spooler.is_stopping:
            raise DatabaseUnavailableError("the crawl is stopping: the database is down")
        try:
            return dialect.connect(*cargs, **cparams)
        except Exception as error:
            # The connect was under way when the crawl began to stop: the outage is said once.
            if self.spooler.is_stopping:
                raise DatabaseUnavailableError(str(error)) from error
            raise

    def _raise_once_stopping(self, context: ExceptionContext) -> None:
        """A statement failing for the outage once the crawl stops: not retried, not logged.

        A connection killed with the outage (the claims connection, one held by a session)
        fails only when next used, which may be after the close began.
        """
        if context.is_pre_ping or not self.spooler.is_stopping:
            return  # a failed ping opens a new connection, which _connect_unless_stopping refuses
        error = context.sqlalchemy_exception or context.original_exception
        if is_database_outage(error):
            raise DatabaseUnavailableError(describe_database_error(error)) from error

    def require_writer(self) -> BatchWriter:
        """The batch writer; only once the store is open."""
        if self.writer is None:
            raise RuntimeError("CrawlStore used before open()")
        return self.writer

    async def flush(self) -> None:
        """Commit every queued write, and wait for it."""
        if self.writer is not None:
            await self.writer.close()

    async def close(self) -> None:
        """Commit the queued writes; the last user also disposes of the engine."""
        await self.flush()
        self._users -= 1
        if self._users > 0:
            return
        self._users = 0
        engine, self.engine, self.writer, self._opening = self.engine, None, None, None
        if engine is not None:
            engine.dispose()
