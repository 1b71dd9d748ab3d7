"""Send stored pages back into the item pipeline chain, without any request or response."""

from __future__ import annotations

from typing import Protocol

from scrapy.crawler import Crawler

from newscrawl.items import PageItem


class ItemReinjector(Protocol):
    """Runs an item through the whole pipeline chain and returns when it is done.

    Returns False, without processing the item, when the crawl is closing.
    """

    async def reinject(self, item: PageItem) -> bool: ...


class EngineReinjector:
    """Re-injects through the running engine's scraper, as if a callback had yielded the item.

    The scraper counts the item as in progress, so the spider does not go idle under it, and
    the usual item_scraped / item_dropped signals and stats follow.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    async def reinject(self, item: PageItem) -> bool:
        engine = self.crawler.engine
        if engine is None:
            return False
        scraper = engine.scraper
        if scraper.slot is None or scraper.slot.closing is not None:
            return False
        try:
            await scraper.start_itemproc_async(item, response=None)
        finally:
            # Scrapy checks whether a closing scraper is done only when a *response* finishes;
            # an item without one would leave Scraper.close_spider_async() waiting forever.
            if scraper.slot is not None and scraper.slot.closing is not None:
                scraper._check_if_closing()
        return True
