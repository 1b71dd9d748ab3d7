"""StartOutageMiddleware: a database outage while a spider reads its start requests stops the
crawl the way the pipelines do (one ERROR line, close reason database_unavailable), instead
of Scrapy's "Error while reading start items and requests" traceback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Self

from scrapy.crawler import Crawler

from newscrawl.pipelines.page_spooling import PageSpooler, is_database_outage


class StartOutageMiddleware:
    """Spider middleware around start(): an outage there stops the crawl cleanly."""

    def __init__(self, spooler: PageSpooler) -> None:
        self.spooler = spooler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(PageSpooler.from_crawler(crawler))

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
