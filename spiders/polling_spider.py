"""The plumbing both spiders share: poll wiring, known-article skipping, failures, stats."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from scrapy import Request, Spider, signals
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from newscrawl.fetch_failures import describe_fetch_error
from newscrawl.items import PageItem
from newscrawl.spider_arguments import (
    CrawlArgumentError,
    check_argument_names,
    check_crawl_settings,
    check_interval,
    describe_argument,
)
from newscrawl.stats_keys import PollingSpiderKeys, count_event
from newscrawl.url_checks import find_url_problem

from .article_pages import ArticleHint, build_page_item, log_article_failure
from .feed_polling import FeedPoller, PollSettings, read_poll_settings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)
T = TypeVar("T")
# A parse still running after this long is given up (its thread finishes on its own); the
# inputs that made parsers slow are capped before they start, so this is a backstop.
PARSE_TIMEOUT_SECONDS = 60.0


class ParseTimeoutError(Exception):
    """A document took longer than PARSE_TIMEOUT_SECONDS to parse."""


def is_transient_failure(failure: Failure) -> bool:
    """True unless the server answered with a 4xx: a later fetch may succeed."""
    return not (isinstance(failure.value, HttpError) and failure.value.response.status < 500)


def list_argument_names(spider: type[Spider]) -> list[str]:
    """The `-a` arguments a spider's __init__ takes by name."""
    parameters = inspect.signature(spider.__init__).parameters.values()
    return [
        p.name for p in parameters
        if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


class PollingSpider(Spider):
    """A spider whose sources (feeds or sitemaps) may be re-polled with state in the database.

    Subclasses set `stats_keys` and `source_kind` ("feed", "sitemap"), and `every`,
    `poll_settings` (None) and `poller` (None) in `__init__`.
    """

    # The counters of the shared plumbing, under the spider's own component.
    stats_keys: ClassVar[PollingSpiderKeys]
    # Seconds a feed or sitemap may take to parse before it is given up (see run_parser).
    parse_timeout: float = PARSE_TIMEOUT_SECONDS
    # Names the source in log lines.
    source_kind: ClassVar[str]
    every: str | None
    poll_settings: PollSettings | None
    # Set in start() when source state is kept in the database.
    poller: FeedPoller | None

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        # Checked before anything opens: a mistake is one line and exit 2, not a traceback.
        check_argument_names(cls.name, kwargs, list_argument_names(cls))
        check_crawl_settings(crawler.settings)
        if kwargs.get("every"):
            check_interval(describe_argument("every", kwargs["every"]), kwargs["every"])
        spider = super().from_crawler(crawler, *args, **kwargs)
        try:
            spider.poll_settings = read_poll_settings(crawler.settings, spider.every)
        except NotConfigured as exc:
            raise CrawlArgumentError(f"-a every={spider.every}: {exc}") from None
        crawler.signals.connect(spider.keep_polling, signal=signals.spider_idle)
        crawler.signals.connect(spider.close_poller, signal=signals.spider_closed)
        return spider

    def select_article_requests(
        self, articles: Iterable[Request], unseen: set[str], poller: FeedPoller
    ) -> Iterator[Request]:
        """The article requests still to fetch: known ones skipped unless told otherwise."""
        for request in articles:
            if request.url not in unseen and poller.settings.skip_seen_urls:
                count_event(self.crawler.stats, self.stats_keys.known_article_skipped)
                continue
            # The database check replaces the dupefilter, whose memory grows without bound.
            yield request.replace(dont_filter=True) if poller.polling else request

    async def save_source_state(
        self, url: str, *writes: Callable[[], Awaitable[object]]
    ) -> None:
        """Run the bookkeeping writes of a fetched source; a failure is logged, not raised.

        The source's articles are scheduled either way: a page fetched while the database is
        down goes to the spool, whereas raising here would leave the listed URLs in the
        seen-URL cache without a request.
        """
        try:
            for write in writes:
                await write()
        except Exception as exc:
            logger.warning("State of %s %s not saved: %s", self.source_kind, url, exc)
            count_event(self.crawler.stats, self.stats_keys.source_state_not_saved)

    def parse_article(self, response: Response, hint: ArticleHint) -> Iterator[PageItem]:
        """Yield the fetched article page as a PageItem."""
        count_event(self.crawler.stats, self.stats_keys.page_fetched)
        yield build_page_item(response, hint)

    def handle_source_error(self, failure: Failure, polled_url: str | None) -> None:
        """Log and count a source that could not be fetched; back off its `polled_url`."""
        request = getattr(failure, "request", None)
        url = request.url if request is not None else "?"
        label = self.source_kind.capitalize()
        reason = describe_fetch_error(failure.value, url)
        logger.warning("%s not fetched: %s (%s)", label, url, reason)
        count_event(self.crawler.stats, self.stats_keys.source_failed)
        if self.poller is not None and polled_url is not None:
            self.poller.spawn(self.record_source_failure(polled_url, failure))

    async def record_source_failure(self, url: str, failure: Failure) -> None:
        """Back the source off, or mark it dead after NEWSCRAWL_FEED_MAX_FAILURES failures."""
        assert self.poller is not None
        if await self.poller.record_failure(url, failure):
            label = self.source_kind.capitalize()
            logger.error("%s marked dead after repeated failures: %s", label, url)
            count_event(self.crawler.stats, self.stats_keys.source_dead)

    def keep_polling(self) -> None:
        """spider_idle: a re-polling crawl waits for its next poll instead of closing."""
        if self.poller is not None:
            self.poller.keep_alive()

    async def close_poller(self, spider: Spider, reason: str) -> None:
        """spider_closed: stop polling and release the database."""
        if self.poller is not None:
            await self.poller.close()

    def handle_article_error(self, failure: Failure) -> None:
        """Log and count an article page that could not be fetched; forget transient failures."""
        log_article_failure(self, failure, self.stats_keys.article_failed)
        request = getattr(failure, "request", None)
        if self.poller is not None and request is not None and is_transient_failure(failure):
            # Neither fetched nor stored: the next poll that lists it schedules it again,
            # instead of the seen-URL cache skipping it until a restart.
            self.poller.seen.discard([request.url])

    async def run_parser(self, parse: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a pure parser in a thread, so the reactor keeps downloading meanwhile."""
        try:
            return await asyncio.wait_for(
                asyncio.to_thread(parse, *args, **kwargs), self.parse_timeout
            )
        except TimeoutError as exc:
            raise ParseTimeoutError(f"not parsed within {self.parse_timeout:g} s") from exc

    def build_checked_request(
        self, url: str, found_in: str, build: Callable[[str], Request]
    ) -> Request | None:
        """`build(url)` when the URL can be fetched; else None, logged and counted as bad_url.

        Each URL taken from a document is checked on its own, so one unusable entry
        (mailto:, javascript:, too long, unparsable) loses only itself.
        """
        problem = find_url_problem(url)
        if problem is None:
            try:
                return build(url)
            except ValueError as exc:
                problem = str(exc)
        logger.warning("Skipping unusable URL %.200r from %s: %s", url, found_in, problem)
        count_event(self.crawler.stats, self.stats_keys.bad_url)
        return None
