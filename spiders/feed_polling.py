"""Feed state for both spiders: conditional GET, seen URLs, schedule, backoff, the poll loop.

The spiders stay thin: they parse, and hand URLs and outcomes to a FeedPoller, which keeps
everything that must survive a restart in the database (FeedRepository) and only a bounded
LRU of URLs in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from scrapy import Request, Spider
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.spidermiddlewares.httperror import HttpError
from sqlalchemy import Engine
from twisted.python.failure import Failure

from newscrawl import settings as project_settings
from newscrawl.background_tasks import BackgroundTasks
from newscrawl.categories import site_from_url
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.poll_schedule import (
    PollBounds,
    compute_backoff,
    compute_next_interval,
    parse_interval,
    read_declared_interval,
)
from newscrawl.seen_url_cache import SeenUrlCache
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.retry import run_in_thread_with_retry

logger = logging.getLogger(__name__)

# Responses a feed callback handles itself: 304 is the cheap "nothing new".
FEED_META = {"handle_httpstatus_list": [304]}


@dataclass(frozen=True)
class PollSettings:
    """Everything the spiders read from NEWSCRAWL_* settings about feed state and polling."""

    database_url: str | None
    every: float | None
    min_interval: float
    max_interval: float
    max_failures: int
    seen_cache_size: int
    tick: float
    lease: float
    skip_seen_urls: bool

    @property
    def bounds(self) -> PollBounds:
        """Interval limits; only meaningful when polling."""
        return PollBounds(self.every or self.min_interval, self.min_interval, self.max_interval)


def read_poll_settings(settings: BaseSettings, every: str | None) -> PollSettings:
    """Poll settings from the crawler settings and the spider's `every` argument."""
    database_url = settings.get("NEWSCRAWL_DATABASE_URL")
    if not settings.getbool(
        "NEWSCRAWL_FEED_STATE_ENABLED", project_settings.NEWSCRAWL_FEED_STATE_ENABLED
    ):
        database_url = None
    every_text = every or settings.get("NEWSCRAWL_POLL_INTERVAL") or None
    every_seconds = parse_interval(every_text) if every_text else None
    if every_seconds is not None and database_url is None:
        raise NotConfigured(
            "re-polling (every= / NEWSCRAWL_POLL_INTERVAL) keeps feed state in the database:"
            " set NEWSCRAWL_DATABASE_URL and NEWSCRAWL_FEED_STATE_ENABLED"
        )
    return PollSettings(
        database_url=database_url,
        every=every_seconds,
        min_interval=parse_interval(settings.get(
            "NEWSCRAWL_POLL_MIN_INTERVAL", project_settings.NEWSCRAWL_POLL_MIN_INTERVAL
        )),
        max_interval=parse_interval(settings.get(
            "NEWSCRAWL_POLL_MAX_INTERVAL", project_settings.NEWSCRAWL_POLL_MAX_INTERVAL
        )),
        max_failures=settings.getint(
            "NEWSCRAWL_FEED_MAX_FAILURES", project_settings.NEWSCRAWL_FEED_MAX_FAILURES
        ),
        seen_cache_size=settings.getint(
            "NEWSCRAWL_SEEN_URL_CACHE_SIZE", project_settings.NEWSCRAWL_SEEN_URL_CACHE_SIZE
        ),
        tick=settings.getfloat("NEWSCRAWL_POLL_TICK", project_settings.NEWSCRAWL_POLL_TICK),
        lease=parse_interval(settings.get(
            "NEWSCRAWL_POLL_LEASE", project_settings.NEWSCRAWL_POLL_LEASE
        )),
        # A polling crawl must skip known articles; a one-shot crawl re-fetches (updates)
        # them unless told otherwise.
        skip_seen_urls=every_seconds is not None
        or settings.getbool("NEWSCRAWL_SKIP_SEEN_URLS", project_settings.NEWSCRAWL_SKIP_SEEN_URLS),
    )


def read_header(response: Response, name: bytes) -> str | None:
    """A response header as text, or None."""
    value = response.headers.get(name)
    return value.decode("latin-1") if value else None


class FeedPoller:
    """The database side of polling feeds, for one spider."""

    def __init__(
        self, engine: Engine, settings: PollSettings, store: CrawlStore | None = None
    ) -> None:
        self.engine = engine
        # The crawl's store the engine came from, released on close; None: the engine is ours.
        self.store = store
        self.settings = settings
        self.feeds = FeedRepository(engine)
        self.seen = SeenUrlCache(settings.seen_cache_size)
        # Feeds fetched by this process: the first fetch is unconditional, because the
        # entries a killed crawl had scheduled but not fetched are only listed in the feed.
        self._fetched_once: set[str] = set()
        # Bookkeeping writes started from errbacks, which cannot await them.
        self._tasks = BackgroundTasks(
            on_error=lambda error: logger.warning("Feed state not recorded: %r", error)
        )
        self._loop_task: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, settings: PollSettings, store: CrawlStore) -> FeedPoller:
        """Poll through the crawl's store (its engine is opened, and migrated, once per crawl)."""
        assert settings.database_url is not None
        return cls(await store.open(), settings, store)

    @property
    def polling(self) -> bool:
        """True when feeds are re-polled until the crawl is stopped."""
        return self.settings.every is not None

    async def register_feeds(self, urls: Sequence[tuple[str, str | None]]) -> None:
        """Make sure every (url, category) feed has a row to keep its state in."""
        for url, category in urls:
            await run_in_thread_with_retry(
                self.feeds.register_feed, url, site=site_from_url(url), category=category
            )

    async def claim_due_feeds(self, urls: Collection[str]) -> list[str]:
        """The feeds among `urls` due for a poll, claimed for this worker."""
        # A claim whose poll never reports back (a killed worker) expires after the lease,
        # at most one base interval: the price is one duplicate poll, never a lost feed.
        lease = timedelta(seconds=min(self.settings.lease, self.settings.bounds.every))
        return await run_in_thread_with_retry(
            self.feeds.claim_due_feeds, urls, now=datetime.now(UTC), lease=lease
        )

    async def build_conditional_headers(self, url: str) -> dict[str, str]:
        """If-None-Match / If-Modified-Since from the stored validators of a feed."""
        if url not in self._fetched_once:
            return {}
        state = await run_in_thread_with_retry(self.feeds.load_feed, url)
        headers: dict[str, str] = {}
        if state is not None and state.etag:
            headers["If-None-Match"] = state.etag
        if state is not None and state.last_modified:
            headers["If-Modified-Since"] = state.last_modified
        return headers

    async def select_unseen_urls(self, urls: Sequence[str]) -> list[str]:
        """The URLs neither cached nor in the database; all of them are remembered from now on."""
        unknown = self.seen.split_unknown(urls)
        # Remembered before the query: feeds parsed meanwhile must not claim the same URLs.
        self.seen.add(unknown)
        try:
            known = await run_in_thread_with_retry(self.feeds.find_known_urls, unknown)
        except BaseException:
            self.seen.discard(unknown)
            raise
        return [url for url in unknown if url not in known]

    async def record_fetched(
        self,
        url: str,
        response: Response,
        *,
        entries: int,
        new_entries: int,
        adapt: bool = True,
        scheduled: bool = True,
        read_hints: bool = True,
    ) -> float:
        """Record a fetched feed and schedule its next poll; returns the new interval.

        Feeds fetched only through a parent (child sitemaps) are not `scheduled`. Sitemaps
        carry no ttl, and can be big: they skip `read_hints`.
        """
        self._fetched_once.add(url)
        state = await run_in_thread_with_retry(self.feeds.load_feed, url)
        current = state.interval_seconds if state is not None else None
        bounds = self.settings.bounds
        if adapt:
            declared = read_declared_interval(response.body) if read_hints else None
            interval = compute_next_interval(
                current, entries=entries, new_entries=new_entries, bounds=bounds,
                declared=declared,
            )
        else:
            interval = current or bounds.every
        now = datetime.now(UTC)
        await run_in_thread_with_retry(
            self.feeds.record_fetched, url, polled_at=now,
            next_poll_at=now + timedelta(seconds=interval) if scheduled else None,
            interval_seconds=interval,
            status=response.status, etag=read_header(response, b"ETag"),
            last_modified=read_header(response, b"Last-Modified"),
            entries=entries, new_entries=new_entries,
        )
        return interval

    async def record_not_modified(self, url: str, *, scheduled: bool = True) -> float:
        """Record a 304; nothing new, so the interval lengthens."""
        state = await run_in_thread_with_retry(self.feeds.load_feed, url)
        current = state.interval_seconds if state is not None else None
        interval = compute_next_interval(
            current, entries=0, new_entries=0, bounds=self.settings.bounds
        )
        now = datetime.now(UTC)
        await run_in_thread_with_retry(
            self.feeds.record_not_modified, url, polled_at=now,
            next_poll_at=now + timedelta(seconds=interval) if scheduled else None,
            interval_seconds=interval,
        )
        return interval

    async def record_failure(self, url: str, failure: Failure) -> bool:
        """Record a failed poll with backoff; True when the feed is now marked dead."""
        status = None
        if isinstance(failure.value, HttpError):
            status = failure.value.response.status
        state = await run_in_thread_with_retry(self.feeds.load_feed, url)
        failures = (state.failure_count if state is not None else 0) + 1
        interval = (state.interval_seconds if state else None) or self.settings.bounds.every
        backoff = compute_backoff(failures, interval=interval, bounds=self.settings.bounds)
        updated = await run_in_thread_with_retry(
            self.feeds.record_failure, url, polled_at=datetime.now(UTC),
            error=failure.getErrorMessage(), status=status,
            max_failures=self.settings.max_failures, backoff=timedelta(seconds=backoff),
        )
        return updated is not None and updated.is_dead

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run bookkeeping in the background (errbacks cannot await); errors are logged."""
        self._tasks.spawn(coroutine)

    def start_loop(
        self,
        spider: Spider,
        sources: Callable[[], Collection[str]],
        build_request: Callable[[str], Awaitable[Request]],
    ) -> None:
        """Every tick, claim the due feeds among `sources()` and schedule their requests."""
        loop = self._poll_periodically(spider, sources, build_request)
        self._loop_task = asyncio.ensure_future(loop)

    async def _poll_periodically(
        self,
        spider: Spider,
        sources: Callable[[], Collection[str]],
        build_request: Callable[[str], Awaitable[Request]],
    ) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            try:
                for url in await self.claim_due_feeds(sources()):
                    assert spider.crawler.engine is not None
                    spider.crawler.engine.crawl(await build_request(url))
            except Exception:
                # A database hiccup skips a tick; the feeds stay due for the next one.
                logger.warning("Poll tick failed", exc_info=True)

    def keep_alive(self) -> None:
        """spider_idle handler: a polling crawl runs until it is stopped."""
        if self.polling:
            raise DontCloseSpider

    async def close(self) -> None:
        """Stop the loop, let bookkeeping finish, release the database."""
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
        await self._tasks.wait_all()
        if self.store is not None:
            await self.store.close()
        else:
            self.engine.dispose()
