"""The rss spider: RSS/Atom feeds (or HTML pages that announce them) to article pages."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from scrapy import Request
from scrapy.http import Response
from twisted.python.failure import Failure

from newscrawl import settings as project_settings
from newscrawl.categories import category_from_url, normalize_category
from newscrawl.feeds import FeedEntry, ParsedFeed, discover_feed_links, parse_feed
from newscrawl.feeds_file import read_feeds_file
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.spider_arguments import CrawlArgumentError, parse_integer, require_web_url
from newscrawl.stats_keys import (
    RSS_AUTHOR_FIELD_CAPPED,
    RSS_ENTRY,
    RSS_ENTRY_WITHOUT_LINK,
    RSS_FEED_DISCOVERED,
    RSS_FEED_NOT_MODIFIED,
    RSS_FEED_PARSED,
    RSS_FEED_UNPARSABLE,
    RSS_NOT_A_FEED,
    RSS_SPIDER_KEYS,
    RSS_XML_ENTITIES_IGNORED,
    count_event,
)
from newscrawl.xml_entities import declares_entities

from .article_pages import ArticleHint, build_article_request
from .feed_polling import FEED_META, FeedPoller
from .polling_spider import ParseTimeoutError, PollingSpider

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedSource:
    """A feed to poll, with the category the user gave it (if any)."""

    url: str
    category: str | None = None


@dataclass(frozen=True)
class FeedDocument:
    """A fetched feed parsed, or the feeds an HTML page announces when it is no feed."""

    feed: ParsedFeed
    announced: list[str]


def read_feed_document(
    body: bytes, url: str, content_type: str | None, discovered: bool
) -> FeedDocument:
    """Parse a feed; a page that is none is searched for feed links, unless it was itself
    found that way (no chains of pages)."""
    parsed = parse_feed(body, url, content_type)
    if parsed.is_feed or parsed.error is not None or discovered:
        return FeedDocument(parsed, [])
    return FeedDocument(parsed, discover_feed_links(body, url))


def read_feed_sources(path: str | Path) -> list[FeedSource]:
    """The feeds of a feeds file (newscrawl/feeds_file.py) with their categories."""
    return [FeedSource(line.url, line.category) for line in read_feeds_file(path)]


class RssSpider(PollingSpider):
    """Crawl the articles of RSS 0.9x/1.0/2.0 and Atom feeds.

    Arguments: `-a feed=URL` (a feed, or an HTML page announcing feeds; `-a category=NAME`
    files its articles under NAME) and/or `-a feeds=FILE` (one feed per line, optional
    category after a tab). `-a every=15m` (or NEWSCRAWL_POLL_INTERVAL) re-polls every feed
    on its own adaptive schedule until the crawl is stopped (docs/operations.md).
    """

    name = "rss"
    stats_keys = RSS_SPIDER_KEYS
    source_kind = "feed"

    def __init__(
        self,
        feed: str | None = None,
        feeds: str | None = None,
        category: str | None = None,
        category_segment: int | str = 0,
        every: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if feed:
            feed = require_web_url("feed", feed)
        sources = [FeedSource(feed, normalize_category(category or "") or None)] if feed else []
        if feeds:
            sources.extend(s for s in read_feed_sources(feeds) if s.url != feed)
        if not sources:
            raise CrawlArgumentError(
                "the rss spider needs a feed: -a feed=URL or -a feeds=FILE,"
                " for example -a feed=https://example.com/rss.xml"
            )
        self.feed_sources: list[FeedSource] = sources
        self.category_segment = parse_integer("category_segment", category_segment)
        self.every = every
        self.poll_settings = None
        self.poller = None
        # What a polling crawl re-polls: the given sources, then the feeds they announce.
        self.polled_sources: dict[str, FeedSource] = {s.url: s for s in sources}

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        kwargs.setdefault(
            "category_segment", crawler.settings.getint(
                "NEWSCRAWL_CATEGORY_SEGMENT", project_settings.NEWSCRAWL_CATEGORY_SEGMENT
            )
        )
        return super().from_crawler(crawler, *args, **kwargs)

    async def start(self) -> AsyncIterator[Request]:
        if self.poll_settings is None or self.poll_settings.database_url is None:
            for source in self.feed_sources:
                yield self.build_feed_request(source)
            return
        poller = self.poller = await FeedPoller.open(
            self.poll_settings, CrawlStore.from_crawler(self.crawler)
        )
        await poller.register_feeds([(s.url, s.category) for s in self.feed_sources])
        if not poller.polling:
            for source in self.feed_sources:
                yield self.build_feed_request(source)
            return
        # Claimed, not just polled: a restarted crawl (or another worker) respects the schedule.
        for url in await poller.claim_due_feeds(list(self.polled_sources)):
            yield await self.build_polled_request(url)
        poller.start_loop(self, self.polled_sources.keys, self.build_polled_request)

    def build_feed_request(
        self,
        source: FeedSource,
        *,
        discovered: bool = False,
        headers: dict[str, str] | None = None,
    ) -> Request:
        """Return the request that fetches a feed (or a page to discover feeds in)."""
        polling = self.poller is not None and self.poller.polling
        return Request(
            source.url,
            callback=self.parse_feed,
            errback=self.handle_feed_error,
            cb_kwargs={"source": source, "discovered": discovered},
            headers=headers,
            meta=dict(FEED_META) if self.poller is not None else None,
            # Re-polled feeds must pass the dupefilter every time.
            dont_filter=polling,
        )

    async def build_polled_request(self, url: str) -> Request:
        """A request for a polled feed; conditional when this process has fetched it before."""
        assert self.poller is not None
        source = self.polled_sources.get(url, FeedSource(url))
        discovered = all(given.url != url for given in self.feed_sources)
        headers = await self.poller.build_conditional_headers(url)
        return self.build_feed_request(source, discovered=discovered, headers=headers)

    async def parse_feed(
        self, response: Response, source: FeedSource, discovered: bool = False
    ) -> AsyncIterator[Request]:
        """Yield a request per feed entry, or per feed discovered in an HTML page.

        The document is parsed in a thread. With feed state in the database, known articles
        are also skipped, 304s handled and the next poll scheduled.
        """
        if self.poller is not None:
            async for request in self.parse_polled_feed(response, source, discovered, self.poller):
                yield request
            return
        for request in await self.read_feed_requests(response, source, discovered):
            yield request

    async def parse_polled_feed(
        self, response: Response, source: FeedSource, discovered: bool, poller: FeedPoller
    ) -> AsyncIterator[Request]:
        """parse_feed with the database: 304s, known articles skipped, the schedule kept."""
        if response.status == 304:
            count_event(self.crawler.stats, RSS_FEED_NOT_MODIFIED)
            await poller.record_not_modified(source.url)
            return
        requests = await self.read_feed_requests(response, source, discovered)
        articles = [r for r in requests if r.callback == self.parse_article]
        unseen = set(await poller.select_unseen_urls([r.url for r in articles]))
        feeds = [r for r in requests if r.callback == self.parse_feed]
        await self.save_source_state(
            source.url,
            partial(
                poller.record_fetched,
                source.url, response, entries=len(articles),
                new_entries=sum(1 for r in articles if r.url in unseen), adapt=not feeds,
            ),
            partial(poller.register_feeds, [(r.url, source.category) for r in feeds]),
        )
        for request in feeds:
            if poller.polling:
                # Announced feeds get their own schedule: the poll loop claims them when due.
                self.polled_sources.setdefault(request.url, request.cb_kwargs["source"])
            else:
                yield request
        for request in self.select_article_requests(articles, unseen, poller):
            yield request

    async def read_feed_requests(
        self, response: Response, source: FeedSource, discovered: bool
    ) -> list[Request]:
        """Parse a fetched feed (or HTML page announcing feeds) off the reactor; its requests."""
        raw_type = response.headers.get(b"Content-Type")
        content_type = raw_type.decode("latin-1") if raw_type else None
        try:
            document = await self.run_parser(
                read_feed_document, response.body, response.url, content_type, discovered
            )
        except ParseTimeoutError as exc:
            document = FeedDocument(ParsedFeed("", None, None, error=str(exc)), [])
        return list(self.iterate_feed_requests(document, response, source))

    def iterate_feed_requests(
        self, document: FeedDocument, response: Response, source: FeedSource
    ) -> Iterator[Request]:
        """The requests a parsed feed (or HTML page announcing feeds) leads to."""
        parsed = document.feed
        if parsed.error is not None:
            logger.warning("Feed %s could not be parsed: %s", response.url, parsed.error)
            count_event(self.crawler.stats, RSS_FEED_UNPARSABLE)
            return
        if not parsed.is_feed:
            yield from self.discover_feeds(document.announced, response, source)
            return
        count_event(self.crawler.stats, RSS_FEED_PARSED)
        if declares_entities(response.body):
            logger.warning("Feed %s declares XML entities; they are not expanded", response.url)
            count_event(self.crawler.stats, RSS_XML_ENTITIES_IGNORED)
        if parsed.capped_fields:
            logger.warning(
                "Feed %s has %d author fields too long to be names; they are left out",
                response.url, parsed.capped_fields,
            )
            count_event(self.crawler.stats, RSS_AUTHOR_FIELD_CAPPED, parsed.capped_fields)
        for title in parsed.entries_without_link:
            logger.info("Skipping feed entry without a link in %s: %s", response.url, title)
            count_event(self.crawler.stats, RSS_ENTRY_WITHOUT_LINK)
        for entry in parsed.entries:
            request = self.build_checked_request(
                entry.link, response.url,
                partial(self.build_entry_request, entry, parsed, source, response.url),
            )
            if request is not None:
                count_event(self.crawler.stats, RSS_ENTRY)
                yield request

    def build_entry_request(
        self, entry: FeedEntry, parsed: ParsedFeed, source: FeedSource, feed_url: str, url: str
    ) -> Request:
        """The article request of a feed entry whose URL passed the check."""
        hint = self.build_hint(entry, parsed, source, feed_url)
        return build_article_request(url, hint, self.parse_article, self.handle_article_error)

    def discover_feeds(
        self, links: list[str], response: Response, source: FeedSource
    ) -> Iterator[Request]:
        """Yield requests for the feeds an HTML page announces; log pages that announce none."""
        if not links:
            logger.warning("No feed found at %s", response.url)
            count_event(self.crawler.stats, RSS_NOT_A_FEED)
            return
        for link in links:
            request = self.build_checked_request(
                link, response.url,
                lambda url: self.build_feed_request(
                    FeedSource(url, source.category), discovered=True
                ),
            )
            if request is not None:
                logger.info("Feed %s found in %s", link, response.url)
                count_event(self.crawler.stats, RSS_FEED_DISCOVERED)
                yield request

    def build_hint(
        self, entry: FeedEntry, parsed: ParsedFeed, source: FeedSource, feed_url: str
    ) -> ArticleHint:
        """Return what the feed says about an entry's article; the category falls back in order."""
        category = (
            source.category
            or entry.category
            or parsed.category
            or category_from_url(entry.link, self.category_segment)
        )
        return ArticleHint(
            category=category,
            feed_url=feed_url,
            title=entry.title,
            published=entry.published,
            authors=entry.authors,
            keywords=entry.keywords,
        )

    def handle_feed_error(self, failure: Failure) -> None:
        """Log and count a feed that could not be fetched; back off its source."""
        request = getattr(failure, "request", None)
        source_url = request.cb_kwargs["source"].url if request is not None else None
        self.handle_source_error(failure, source_url)
