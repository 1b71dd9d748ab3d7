"""The plumbing both spiders share: poll wiring, known-article skipping, failures, stats."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Self

from scrapy import Request, Spider, signals
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from newscrawl.items import PageItem
from newscrawl.stats_keys import build_stats_key

from .article_pages import ArticleHint, build_page_item, log_article_failure
from .feed_polling import FeedPoller, PollSettings, read_poll_settings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


def is_transient_failure(failure: Failure) -> bool:
    """True unless the server answered with a 4xx: a later fetch may succeed."""
    return not (isinstance(failure.value, HttpError) and failure.value.response.status < 500)


class PollingSpider(Spider):
    """A spider whose sources (feeds or sitemaps) may be re-polled with state in the database.

    Subclasses set `stats_component` and `source_kind` ("feed", "sitemap"), and `every`,
    `poll_settings` (None) and `poller` (None) in `__init__`.
    """

    stats_component: ClassVar[str]
    # Names the source in log lines and in the <kind>_failed / <kind>_dead stats.
    source_kind: ClassVar[str]
    every: str | None
    poll_settings: PollSettings | None
    # Set in start() when source state is kept in the database.
    poller: FeedPoller | None

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.poll_settings = read_poll_settings(crawler.settings, spider.every)
        crawler.signals.connect(spider.keep_polling, signal=signals.spider_idle)
        crawler.signals.connect(spider.close_poller, signal=signals.spider_closed)
        return spider

    def select_article_requests(
        self, articles: Iterable[Request], unseen: set[str], poller: FeedPoller
    ) -> Iterator[Request]:
        """The article requests still to fetch: known ones skipped unless told otherwise."""
        for request in articles:
            if request.url not in unseen and poller.settings.skip_seen_urls:
                self.inc_stat("known_article_skipped")
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
            self.inc_stat(f"{self.source_kind}_state_not_saved")

    def parse_article(self, response: Response, hint: ArticleHint) -> Iterator[PageItem]:
        """Yield the fetched article page as a PageItem."""
        self.inc_stat("page_fetched")
        yield build_page_item(response, hint)

    def handle_source_error(self, failure: Failure, polled_url: str | None) -> None:
        """Log and count a source that could not be fetched; back off its `polled_url`."""
        request = getattr(failure, "request", None)
        url = request.url if request is not None else "?"
        label = self.source_kind.capitalize()
        logger.warning("%s not fetched: %s (%s)", label, url, failure.getErrorMessage())
        self.inc_stat(f"{self.source_kind}_failed")
        if self.poller is not None and polled_url is not None:
            self.poller.spawn(self.record_source_failure(polled_url, failure))

    async def record_source_failure(self, url: str, failure: Failure) -> None:
        """Back the source off, or mark it dead after NEWSCRAWL_FEED_MAX_FAILURES failures."""
        assert self.poller is not None
        if await self.poller.record_failure(url, failure):
            label = self.source_kind.capitalize()
            logger.error("%s marked dead after repeated failures: %s", label, url)
            self.inc_stat(f"{self.source_kind}_dead")

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
        log_article_failure(self, failure, self.stats_component)
        request = getattr(failure, "request", None)
        if self.poller is not None and request is not None and is_transient_failure(failure):
            # Neither fetched nor stored: the next poll that lists it schedules it again,
            # instead of the seen-URL cache skipping it until a restart.
            self.poller.seen.discard([request.url])

    def inc_stat(self, event: str, count: int = 1) -> None:
        """Increment the `newscrawl/<stats_component>/<event>` counter."""
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(build_stats_key(self.stats_component, event), count)
