"""DatabaseOutageMiddleware: a database outage inside the spider (reading start requests, or
feed state while parsing a feed) stops the crawl the way the pipelines do: one ERROR line,
close reason database_unavailable, instead of a traceback per callback."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.http import Response

from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.page_spooling import PageSpooler, is_database_outage


class DatabaseOutageMiddleware:
    """Spider middleware around start() and the callbacks: an outage stops the crawl cleanly."""

    def __init__(self, spooler: PageSpooler) -> None:
        self.spooler = spooler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        # The crawl's one spooler: every component sees the same stop.
        return cls(CrawlStore.from_crawler(crawler).spooler)

    async def process_start(self, start: AsyncIterator[Any]) -> AsyncIterator[Any]:
        if self.spooler.is_stopping:
            # The pipelines found the database down while opening: reading the start
            # requests would only retry it again while the spider closes.
            return
        try:
            async for request_or_item in start:
                yield request_or_item
        except Exception as error:
            if not is_database_outage(error):
                raise
            self.spooler.stop_crawl(error)

    def process_spider_exception(
        self, response: Response, exception: Exception
    ) -> Iterable[Any] | None:
        if not is_database_outage(exception):
            return None
        # The source's entries are listed again by its next poll; nothing fetched is lost.
        self.spooler.stop_crawl(exception)
        return ()
