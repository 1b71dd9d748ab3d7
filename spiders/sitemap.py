"""The sitemap spider: sitemaps, sitemap indexes and news sitemaps to article pages."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urljoin

from scrapy import Request
from scrapy.http import Response
from twisted.python.failure import Failure

from newscrawl import settings as project_settings
from newscrawl.categories import category_from_url
from newscrawl.feeds import discover_feed_links
from newscrawl.fetch_failures import describe_fetch_error
from newscrawl.items import PageItem
from newscrawl.middlewares.response_guard import SKIP_GUARD_META
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.sitemap_discovery import WELL_KNOWN_SITEMAP_PATHS, sitemap_urls_from_robots
from newscrawl.sitemaps import (
    DEFAULT_MAX_SIZE,
    MAX_URLS_PER_SITEMAP,
    ParsedSitemap,
    SitemapEntry,
    parse_sitemap,
)
from newscrawl.spider_arguments import (
    CrawlArgumentError,
    compile_pattern,
    parse_integer,
    parse_since,
    require_web_url,
)
from newscrawl.stats_keys import (
    SITEMAP_ENTRY_TRUNCATED,
    SITEMAP_FORMAT_KEYS,
    SITEMAP_HOMEPAGE_FAILED,
    SITEMAP_HOMEPAGE_FEED,
    SITEMAP_HOMEPAGE_UNPARSABLE,
    SITEMAP_INVALID_SITEMAP,
    SITEMAP_NEWS_MERGED,
    SITEMAP_ROBOTS_SITEMAP,
    SITEMAP_SITE_PROBED,
    SITEMAP_SITEMAP,
    SITEMAP_SITEMAP_FOUND_AGAIN,
    SITEMAP_SITEMAP_GUESS_MISSING,
    SITEMAP_SITEMAP_INDEX,
    SITEMAP_SITEMAP_NOT_MODIFIED,
    SITEMAP_SITEMAP_TOO_OLD,
    SITEMAP_SPIDER_KEYS,
    SITEMAP_URL,
    SITEMAP_URL_FILTERED,
    SITEMAP_URL_OVER_CRAWL_LIMIT,
    SITEMAP_URL_OVER_SITEMAP_LIMIT,
    SITEMAP_URL_TOO_OLD,
    SITEMAP_WELL_KNOWN_SITEMAP,
    SITEMAP_XML_ENTITIES_IGNORED,
    count_event,
)
from newscrawl.xml_entities import declares_entities

from .article_pages import ArticleHint, build_article_request
from .feed_polling import FEED_META, FeedPoller
from .polling_spider import ParseTimeoutError, PollingSpider

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)
# Sitemaps, robots.txt and homepages go before article pages: a news sitemap read before
# the page it lists can still give that page its headline and date.
SOURCE_PRIORITY = 10


class SitemapSpider(PollingSpider):
    """Crawl the articles listed in sitemaps, keeping news:title, publication date and keywords.

    Arguments: `-a sitemap=URL[,URL...]` and/or `-a site=URL` (discovery: the robots.txt
    Sitemap lines, then always the well-known sitemap paths, then the feeds the homepage
    announces, read as sitemaps), `-a since=DATE`, `-a allow=REGEX`, `-a deny=REGEX`,
    `-a every=1h` (or NEWSCRAWL_POLL_INTERVAL) to re-poll the sitemaps until stopped.
    """

    name = "sitemap"
    stats_keys = SITEMAP_SPIDER_KEYS
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
        max_urls: int | str = project_settings.NEWSCRAWL_SITEMAP_MAX_URLS,
        every: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.sitemap_urls = [
            require_web_url("sitemap", u) for u in (sitemap or "").split(",") if u.strip()
        ]
        self.site_urls = [require_web_url("site", u) for u in (site or "").split(",") if u.strip()]
        if not self.sitemap_urls and not self.site_urls:
            raise CrawlArgumentError(
                "the sitemap spider needs a sitemap or a site: -a sitemap=URL or -a site=URL,"
                " for example -a site=https://example.com/"
            )
        self.since: datetime | None = parse_since(since) if since else None
        self.allow = compile_pattern("allow", allow) if allow else None
        self.deny = compile_pattern("deny", deny) if deny else None
        self.category_segment = parse_integer("category_segment", category_segment)
        self.max_size = parse_integer("max_size", max_size)
        # Article URLs taken from sitemaps in this crawl, against NEWSCRAWL_SITEMAP_MAX_URLS.
        self.max_urls = parse_integer("max_urls", max_urls)
        self.urls_taken = 0
        # The NEWSCRAWL_SITEMAP_MAX_URLS warning is logged once per crawl.
        self.crawl_limit_logged = False
        self.every = every
        self.poll_settings = None
        self.poller = None
        # The top-level sitemaps a polling crawl re-polls: given ones, then discovered ones.
        self.polled_sitemaps: dict[str, None] = dict.fromkeys(self.sitemap_urls)
        # Every sitemap found so far, with how it was found: each is read once.
        self.found_sitemaps: dict[str, str] = dict.fromkeys(self.sitemap_urls, "given")
        # News data of listed URLs not fetched yet: whichever sitemap listed a URL first,
        # the page gets the headline and date of the one that has them.
        self.news_hints: dict[str, ArticleHint] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        settings = crawler.settings
        kwargs.setdefault(
            "category_segment",
            settings.getint(
                "NEWSCRAWL_CATEGORY_SEGMENT", project_settings.NEWSCRAWL_CATEGORY_SEGMENT
            ),
        )
        kwargs.setdefault(
            "max_size",
            settings.getint(
                "NEWSCRAWL_SITEMAP_MAX_SIZE", project_settings.NEWSCRAWL_SITEMAP_MAX_SIZE
            ),
        )
        kwargs.setdefault(
            "max_urls",
            settings.getint(
                "NEWSCRAWL_SITEMAP_MAX_URLS", project_settings.NEWSCRAWL_SITEMAP_MAX_URLS
            ),
        )
        return super().from_crawler(crawler, *args, **kwargs)

    async def start(self) -> AsyncIterator[Request]:
        settings = self.poll_settings
        if settings is not None and settings.database_url is not None:
            store = CrawlStore.from_crawler(self.crawler)
            poller = self.poller = await FeedPoller.open(settings, store)
            await poller.register_feeds([(url, None) for url in self.sitemap_urls])
            if poller.polling:
                # The loop claims every due sitemap, the given ones from its first tick on.
                poller.start_loop(self, self.polled_sitemaps.keys, self.build_polled_request)
        if self.poller is None or not self.poller.polling:
            for url in self.sitemap_urls:
                yield self.build_sitemap_request(url)
        for site in self.site_urls:
            request = self.build_checked_request(
                urljoin(site, "/robots.txt"), "the site argument",
                partial(
                    Request, callback=self.parse_robots, errback=self.handle_robots_error,
                    cb_kwargs={"site": site}, priority=SOURCE_PRIORITY,
                ),
            )
            if request is not None:
                yield request

    async def parse_robots(self, response: Response, site: str) -> AsyncIterator[Request]:
        """Follow the robots.txt Sitemap lines, then probe the well-known paths and homepage."""
        found = sitemap_urls_from_robots(response.body, response.url)
        requests = self.select_discovered(found, "robots.txt", response.url)
        count_event(self.crawler.stats, SITEMAP_ROBOTS_SITEMAP, len(requests))
        if requests and self.poller is not None and self.poller.polling:
            await self.add_polled_sitemaps([r.url for r in requests], self.poller)
        else:
            for request in requests:
                yield request
        for request in self.probe_site(site):
            yield request

    def select_discovered(self, urls: list[str], how: str, found_in: str) -> list[Request]:
        """Requests for the discovered sitemaps not known yet; unusable URLs are skipped."""
        requests: list[Request] = []
        for url in urls:
            request = self.build_checked_request(url, found_in, self.build_sitemap_request)
            if request is not None and self.claim_sitemap(request.url, how, found_in):
                requests.append(request)
        return requests

    async def add_polled_sitemaps(self, urls: list[str], poller: FeedPoller) -> None:
        """Hand discovered sitemaps to the poll loop, which fetches them when due."""
        await poller.register_feeds([(url, None) for url in urls])
        self.polled_sitemaps.update(dict.fromkeys(urls))

    def handle_robots_error(self, failure: Failure) -> Iterator[Request]:
        """Without a robots.txt, probe the well-known paths and the homepage all the same."""
        request = failure.request  # type: ignore[attr-defined]
        reason = describe_fetch_error(failure.value, request.url)
        logger.info("No robots.txt at %s (%s)", request.url, reason)
        yield from self.probe_site(request.cb_kwargs["site"])

    def claim_sitemap(self, url: str, how: str, found_in: str) -> bool:
        """Note a discovered sitemap and how it was found; False when it is known already."""
        if url in self.found_sitemaps:
            count_event(self.crawler.stats, SITEMAP_SITEMAP_FOUND_AGAIN)
            return False
        self.found_sitemaps[url] = how
        logger.info("Sitemap %s found in %s", url, found_in)
        return True

    def probe_site(self, site: str) -> Iterator[Request]:
        """Requests for the well-known sitemap paths ultimate-sitemap-parser tries, and the
        homepage, whose announced feeds are read as sitemaps."""
        count_event(self.crawler.stats, SITEMAP_SITE_PROBED)
        for path in WELL_KNOWN_SITEMAP_PATHS:
            url = urljoin(site, path)
            if url in self.found_sitemaps:
                continue
            # Logged once it turns out to exist: most sites have few of these.
            self.found_sitemaps[url] = "a well-known path"
            request = self.build_checked_request(
                url, site, partial(self.build_sitemap_request, errback=self.handle_guess_error)
            )
            if request is not None:
                yield request
        homepage = self.build_checked_request(
            site, "the site argument",
            partial(
                Request, callback=self.parse_homepage, errback=self.handle_homepage_error,
                priority=SOURCE_PRIORITY,
            ),
        )
        if homepage is not None:
            yield homepage

    async def parse_homepage(self, response: Response) -> AsyncIterator[Request]:
        """Read the feeds a homepage announces as sitemaps: they list its newest articles."""
        try:
            links = await self.run_parser(discover_feed_links, response.body, response.url)
        except ParseTimeoutError as exc:
            logger.warning("Homepage %s could not be parsed: %s", response.url, exc)
            count_event(self.crawler.stats, SITEMAP_HOMEPAGE_UNPARSABLE)
            return
        requests = self.select_discovered(links, "the homepage", response.url)
        count_event(self.crawler.stats, SITEMAP_HOMEPAGE_FEED, len(requests))
        if requests and self.poller is not None and self.poller.polling:
            await self.add_polled_sitemaps([r.url for r in requests], self.poller)
            return
        for request in requests:
            yield request

    def handle_homepage_error(self, failure: Failure) -> None:
        """A homepage that could not be fetched only means no feeds from it."""
        request = getattr(failure, "request", None)
        url = request.url if request is not None else "?"
        logger.info("Homepage not fetched: %s (%s)", url, describe_fetch_error(failure.value, url))
        count_event(self.crawler.stats, SITEMAP_HOMEPAGE_FAILED)

    def build_sitemap_request(
        self,
        url: str,
        errback: Callable[[Failure], Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Request:
        """A sitemap request; its size cap is the sitemap one, not DOWNLOAD_MAXSIZE for pages."""
        meta: dict[str, Any] = {"download_maxsize": self.max_size, SKIP_GUARD_META: True}
        if self.poller is not None:
            meta.update(FEED_META)
        return Request(
            url,
            callback=self.parse_sitemap,
            errback=errback or self.handle_sitemap_error,
            meta=meta,
            headers=headers,
            priority=SOURCE_PRIORITY,
            # Re-polled sitemaps must pass the dupefilter every time.
            dont_filter=self.poller is not None and self.poller.polling,
        )

    async def build_polled_request(self, url: str) -> Request:
        """A conditional request for a sitemap this process has fetched before."""
        assert self.poller is not None
        headers = await self.poller.build_conditional_headers(url)
        return self.build_sitemap_request(url, headers=headers)

    async def parse_sitemap(self, response: Response) -> AsyncIterator[Request]:
        """Yield requests for the child sitemaps of an index or the articles of a sitemap.

        The document is parsed in a thread. With sitemap state in the database, known
        articles are also skipped, 304s handled and the next poll scheduled.
        """
        if self.poller is not None:
            async for request in self.parse_polled_sitemap(response, self.poller):
                yield request
            return
        for request in await self.read_sitemap_requests(response):
            yield request

    async def parse_polled_sitemap(
        self, response: Response, poller: FeedPoller
    ) -> AsyncIterator[Request]:
        """parse_sitemap with the database: 304s, known articles skipped, the schedule kept."""
        url = response.meta.get("redirect_urls", [response.url])[0]
        if response.status == 304:
            count_event(self.crawler.stats, SITEMAP_SITEMAP_NOT_MODIFIED)
            await poller.record_not_modified(url, scheduled=url in self.polled_sitemaps)
            return
        if poller.polling and response.request is not None and (
            response.request.errback == self.handle_guess_error
        ):
            # A guessed location that exists: from now on it is polled like a given one.
            self.polled_sitemaps[url] = None
        requests = await self.read_sitemap_requests(response)
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

    async def read_sitemap_requests(self, response: Response) -> list[Request]:
        """Parse a fetched sitemap off the reactor; the requests it leads to."""
        if declares_entities(response.body):
            logger.warning("Sitemap %s declares XML entities; they are not expanded", response.url)
            count_event(self.crawler.stats, SITEMAP_XML_ENTITIES_IGNORED)
        try:
            parsed = await self.run_parser(
                parse_sitemap, response.body, response.url,
                max_size=self.max_size, max_urls=MAX_URLS_PER_SITEMAP,
            )
        except ParseTimeoutError as exc:
            parsed = ParsedSitemap(kind="", error=str(exc))
        # Each entry is released once its request is built: a maximal sitemap never holds
        # its 50,000 entries and their 50,000 requests at once.
        entries = list(reversed(parsed.entries))
        summary = dataclasses.replace(parsed, entries=())
        del parsed
        return list(self.iterate_sitemap_requests(summary, entries, response.url))

    def iterate_sitemap_requests(
        self, parsed: ParsedSitemap, entries: list[SitemapEntry], url: str
    ) -> Iterator[Request]:
        """The requests a parsed sitemap leads to: child sitemaps or article pages.

        `entries` are the sitemap's entries in reverse order, taken (popped) one by one.
        """
        if not parsed.kind:
            if parsed.error:
                logger.warning("Ignoring invalid sitemap %s: %s", url, parsed.error)
            else:
                logger.warning("Ignoring invalid sitemap: %s", url)
            count_event(self.crawler.stats, SITEMAP_INVALID_SITEMAP)
            return
        how = self.found_sitemaps.get(url)
        if how == "a well-known path":
            logger.info("Sitemap %s found at a well-known path", url)
            count_event(self.crawler.stats, SITEMAP_WELL_KNOWN_SITEMAP)
        if parsed.truncated:
            logger.warning("Sitemap %s is cut off: %d entries dropped", url, parsed.truncated)
            count_event(self.crawler.stats, SITEMAP_ENTRY_TRUNCATED, parsed.truncated)
        if parsed.over_limit:
            logger.warning(
                "Sitemap %s lists more than %d URLs: %d ignored",
                url, MAX_URLS_PER_SITEMAP, parsed.over_limit,
            )
            count_event(self.crawler.stats, SITEMAP_URL_OVER_SITEMAP_LIMIT, parsed.over_limit)
        if parsed.lists_sitemaps:
            count_event(self.crawler.stats, SITEMAP_SITEMAP_INDEX)
            while entries:
                entry = entries.pop()
                if self.is_older(entry):
                    count_event(self.crawler.stats, SITEMAP_SITEMAP_TOO_OLD)
                    continue
                request = self.build_checked_request(entry.loc, url, self.build_sitemap_request)
                if request is not None:
                    yield request
            return
        count_event(self.crawler.stats, SITEMAP_SITEMAP)
        count_event(self.crawler.stats, SITEMAP_FORMAT_KEYS[parsed.kind])
        while entries:
            request = self.build_entry_request(entries.pop(), url)
            if request is not None:
                yield request

    def build_entry_request(self, entry: SitemapEntry, sitemap_url: str) -> Request | None:
        """The article request of one sitemap entry, unless filtered, too old or over the limit."""
        if not self.is_allowed(entry.loc):
            count_event(self.crawler.stats, SITEMAP_URL_FILTERED)
            return None
        if self.is_older(entry):
            count_event(self.crawler.stats, SITEMAP_URL_TOO_OLD)
            return None
        if self.urls_taken >= self.max_urls:
            count_event(self.crawler.stats, SITEMAP_URL_OVER_CRAWL_LIMIT)
            if not self.crawl_limit_logged:
                self.crawl_limit_logged = True
                logger.warning(
                    "NEWSCRAWL_SITEMAP_MAX_URLS (%d) reached: further sitemap URLs are ignored",
                    self.max_urls,
                )
            return None
        request = self.build_checked_request(
            entry.loc, sitemap_url,
            lambda url: build_article_request(
                url, self.build_hint(entry, sitemap_url), self.parse_article,
                self.handle_article_error,
            ),
        )
        if request is None:
            return None
        hint: ArticleHint = request.cb_kwargs["hint"]
        self.urls_taken += 1
        count_event(self.crawler.stats, SITEMAP_URL)
        if entry.has_news and len(self.news_hints) < self.max_urls:
            self.news_hints.setdefault(request.url, hint)
        return request

    def parse_article(self, response: Response, hint: ArticleHint) -> Iterator[PageItem]:
        """The fetched page as a PageItem, with the news data any sitemap gave its URL."""
        request_url = response.request.url if response.request is not None else response.url
        url = response.meta.get("redirect_urls", [request_url])[0]
        news = self.news_hints.pop(url, None)
        if news is not None and news is not hint:
            hint = merge_news_hint(hint, news)
            count_event(self.crawler.stats, SITEMAP_NEWS_MERGED)
        return super().parse_article(response, hint)

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
        count_event(self.crawler.stats, SITEMAP_SITEMAP_GUESS_MISSING)


def merge_news_hint(hint: ArticleHint, news: ArticleHint) -> ArticleHint:
    """The hint a page was requested with, completed by the news data another sitemap gave."""
    return dataclasses.replace(
        hint,
        title=hint.title or news.title,
        published=hint.published or news.published,
        keywords=hint.keywords or news.keywords,
    )
