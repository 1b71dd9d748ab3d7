"""The sitemap spider: sitemaps, sitemap indexes and news sitemaps to article pages."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urljoin

from scrapy import Request
from scrapy.http import Response
from twisted.python.failure import Failure

from newscrawl.categories import category_from_url
from newscrawl.sitemaps import (
    DEFAULT_MAX_SIZE,
    SitemapEntry,
    SitemapError,
    decompress_gzip,
    is_gzip,
    parse_sitemap,
    parse_w3c_datetime,
    sitemap_urls_from_robots,
)
from newscrawl.xml_entities import declares_entities

from .article_pages import ArticleHint, build_article_request
from .feed_polling import FEED_META, FeedPoller
from .polling_spider import PollingSpider

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)
# Tried in this order when robots.txt names no sitemap.
COMMON_SITEMAP_PATHS = ("/sitemap.xml", "/sitemap_index.xml", "/news-sitemap.xml")


class SitemapSpider(PollingSpider):
    """Crawl the articles listed in sitemaps, keeping news:title, publication date and keywords.

    Arguments: `-a sitemap=URL[,URL...]` and/or `-a site=URL` (discovery through robots.txt,
    then the common sitemap names), `-a since=DATE`, `-a allow=REGEX`, `-a deny=REGEX`,
    `-a every=1h` (or NEWSCRAWL_POLL_INTERVAL) to re-poll the sitemaps until stopped.
    """

    name = "sitemap"
    stats_component = "sitemap"
    source_kind = "sitemap"

    def __init__(
        self,
        sitemap: str | None = None,
        site: str | None = None,
        since: str | None = None,
        allow: str | None = None,
        deny: str | None = None,
        category_segment: int | str = 0,
        max_size: int | str = DEFAULT_MAX_SIZE,
        every: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.sitemap_urls = [u.strip() for u in (sitemap or "").split(",") if u.strip()]
        self.site_urls = [u.strip() for u in (site or "").split(",") if u.strip()]
        if not self.sitemap_urls and not self.site_urls:
            raise ValueError("the sitemap spider needs -a sitemap=URL or -a site=URL")
        self.since: datetime | None = None
        if since:
            self.since = parse_w3c_datetime(since)
            if self.since is None:
                raise ValueError(f"since={since!r} is not a date such as 2026-11-01")
        self.allow = re.compile(allow) if allow else None
        self.deny = re.compile(deny) if deny else None
        self.category_segment = int(category_segment)
        self.max_size = int(max_size)
        self.every = every
        self.poll_settings = None
        self.poller = None
        # The top-level sitemaps a polling crawl re-polls: given ones, then discovered ones.
        self.polled_sitemaps: dict[str, None] = dict.fromkeys(self.sitemap_urls)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        settings = crawler.settings
        kwargs.setdefault("category_segment", settings.getint("NEWSCRAWL_CATEGORY_SEGMENT", 0))
        kwargs.setdefault(
            "max_size", settings.getint("NEWSCRAWL_SITEMAP_MAX_SIZE", DEFAULT_MAX_SIZE)
        )
        return super().from_crawler(crawler, *args, **kwargs)

    async def start(self) -> AsyncIterator[Request]:
        settings = self.poll_settings
        if settings is not None and settings.database_url is not None:
            poller = self.poller = await FeedPoller.open(settings)
            await poller.register_feeds([(url, None) for url in self.sitemap_urls])
            if poller.polling:
                # The loop claims every due sitemap, the given ones from its first tick on.
                poller.start_loop(self, self.polled_sitemaps.keys, self.build_polled_request)
        if self.poller is None or not self.poller.polling:
            for url in self.sitemap_urls:
                yield self.build_sitemap_request(url)
        for site in self.site_urls:
            yield Request(
                urljoin(site, "/robots.txt"),
                callback=self.parse_robots,
                errback=self.handle_robots_error,
                cb_kwargs={"site": site},
            )

    def parse_robots(
        self, response: Response, site: str
    ) -> Iterator[Request] | Coroutine[Any, Any, list[Request]]:
        """Follow the robots.txt `Sitemap:` lines, else try the common sitemap names."""
        urls = sitemap_urls_from_robots(response.body, response.url)
        if urls and self.poller is not None and self.poller.polling:
            self.inc_stat("robots_sitemap", len(urls))
            return self.add_polled_sitemaps(urls, self.poller)
        return self.follow_robots(urls, site)

    def follow_robots(self, urls: list[str], site: str) -> Iterator[Request]:
        """Requests for the sitemaps robots.txt names, else for the common names."""
        if urls:
            self.inc_stat("robots_sitemap", len(urls))
            for url in urls:
                yield self.build_sitemap_request(url)
            return
        yield from self.guess_sitemaps(site)

    async def add_polled_sitemaps(self, urls: list[str], poller: FeedPoller) -> list[Request]:
        """Hand discovered sitemaps to the poll loop, which fetches them when due."""
        await poller.register_feeds([(url, None) for url in urls])
        self.polled_sitemaps.update(dict.fromkeys(urls))
        return []

    def handle_robots_error(self, failure: Failure) -> Iterator[Request]:
        """Without a robots.txt, fall back to the common sitemap names."""
        request = failure.request  # type: ignore[attr-defined]
        logger.info("No robots.txt at %s (%s)", request.url, failure.getErrorMessage())
        yield from self.guess_sitemaps(request.cb_kwargs["site"])

    def guess_sitemaps(self, site: str) -> Iterator[Request]:
        """Yield requests for the common sitemap locations of a site."""
        for path in COMMON_SITEMAP_PATHS:
            yield self.build_sitemap_request(urljoin(site, path), self.handle_guess_error)

    def build_sitemap_request(
        self,
        url: str,
        errback: Callable[[Failure], Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Request:
        """A sitemap request; its size cap is the sitemap one, not DOWNLOAD_MAXSIZE for pages."""
        meta: dict[str, Any] = {"download_maxsize": self.max_size}
        if self.poller is not None:
            meta.update(FEED_META)
        return Request(
            url,
            callback=self.parse_sitemap,
            errback=errback or self.handle_sitemap_error,
            meta=meta,
            headers=headers,
            # Re-polled sitemaps must pass the dupefilter every time.
            dont_filter=self.poller is not None and self.poller.polling,
        )

    async def build_polled_request(self, url: str) -> Request:
        """A conditional request for a sitemap this process has fetched before."""
        assert self.poller is not None
        headers = await self.poller.build_conditional_headers(url)
        return self.build_sitemap_request(url, headers=headers)

    def parse_sitemap(self, response: Response) -> Iterator[Request] | AsyncIterator[Request]:
        """Yield requests for the child sitemaps of an index or the articles of a urlset.

        With sitemap state in the database, the async variant also skips known articles,
        handles 304 and schedules the next poll.
        """
        if self.poller is not None:
            return self.parse_polled_sitemap(response, self.poller)
        return self.iterate_sitemap_requests(response)

    async def parse_polled_sitemap(
        self, response: Response, poller: FeedPoller
    ) -> AsyncIterator[Request]:
        """parse_sitemap with the database: 304s, known articles skipped, the schedule kept."""
        url = response.meta.get("redirect_urls", [response.url])[0]
        if response.status == 304:
            self.inc_stat("sitemap_not_modified")
            await poller.record_not_modified(url, scheduled=url in self.polled_sitemaps)
            return
        if poller.polling and response.request is not None and (
            response.request.errback == self.handle_guess_error
        ):
            # A guessed location that exists: from now on it is polled like a given one.
            self.polled_sitemaps[url] = None
        requests = list(self.iterate_sitemap_requests(response))
        articles = [r for r in requests if r.callback == self.parse_article]
        children = [r for r in requests if r.callback == self.parse_sitemap]
        unseen = set(await poller.select_unseen_urls([r.url for r in articles]))
        await self.save_source_state(
            url,
            partial(poller.register_feeds, [(url, None)] + [(r.url, None) for r in children]),
            partial(
                poller.record_fetched,
                url, response, entries=len(articles),
                new_entries=sum(1 for r in articles if r.url in unseen), adapt=not children,
                scheduled=url in self.polled_sitemaps, read_hints=False,
            ),
        )
        for request in children:
            headers = await poller.build_conditional_headers(request.url)
            yield request.replace(headers=headers)
        for request in self.select_article_requests(articles, unseen, poller):
            yield request

    def iterate_sitemap_requests(self, response: Response) -> Iterator[Request]:
        """The requests a fetched sitemap leads to: child sitemaps or article pages."""
        body = self.read_sitemap_body(response)
        if body is None:
            return
        parsed = parse_sitemap(body, response.url)
        if parsed.kind == "sitemapindex":
            self.inc_stat("sitemap_index")
            for entry in parsed.entries:
                if self.is_older(entry):
                    self.inc_stat("sitemap_too_old")
                    continue
                yield self.build_sitemap_request(entry.loc)
        elif parsed.kind == "urlset":
            self.inc_stat("sitemap")
            for entry in parsed.entries:
                if not self.is_allowed(entry.loc):
                    self.inc_stat("url_filtered")
                elif self.is_older(entry):
                    self.inc_stat("url_too_old")
                else:
                    self.inc_stat("url")
                    yield build_article_request(
                        entry.loc,
                        self.build_hint(entry, response.url),
                        self.parse_article,
                        self.handle_article_error,
                    )
        else:
            logger.warning("Ignoring invalid sitemap: %s", response.url)
            self.inc_stat("invalid_sitemap")

    def read_sitemap_body(self, response: Response) -> bytes | None:
        """Return the sitemap XML, gunzipped within the size cap; None (logged) if unreadable."""
        body = response.body
        if is_gzip(body):
            try:
                body = decompress_gzip(body, self.max_size)
            except SitemapError as exc:
                logger.warning("Ignoring invalid sitemap %s: %s", response.url, exc)
                self.inc_stat("invalid_sitemap")
                return None
        if declares_entities(body):
            logger.warning("Sitemap %s declares XML entities; they are not expanded", response.url)
            self.inc_stat("xml_entities_ignored")
        return body

    def is_allowed(self, url: str) -> bool:
        """True when the URL passes the allow and deny patterns."""
        if self.allow is not None and not self.allow.search(url):
            return False
        return self.deny is None or not self.deny.search(url)

    def is_older(self, entry: SitemapEntry) -> bool:
        """True when `since` is set and the entry is dated before it; undated entries pass."""
        date = entry.date
        return self.since is not None and date is not None and date < self.since

    def build_hint(self, entry: SitemapEntry, sitemap_url: str) -> ArticleHint:
        """Return what the sitemap says about an article."""
        return ArticleHint(
            category=category_from_url(entry.loc, self.category_segment),
            feed_url=sitemap_url,
            title=entry.news_title,
            published=entry.news_publication_date,
            keywords=entry.news_keywords,
        )

    def handle_sitemap_error(self, failure: Failure) -> None:
        """Log and count a sitemap that could not be fetched; back it off."""
        request = getattr(failure, "request", None)
        self.handle_source_error(failure, request.url if request is not None else None)

    def handle_guess_error(self, failure: Failure) -> None:
        """A guessed sitemap location that does not exist is expected: count it only."""
        self.inc_stat("sitemap_guess_missing")
