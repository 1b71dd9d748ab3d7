"""Send stored pages back into the item pipeline chain, without any request or response.

Scrapy 2.19 has no public API for two things this needs, so each is one small method below
that reaches a private attribute, checks it exists, and warns (once) and degrades if it does not.
"""

from __future__ import annotations

import logging
from typing import Protocol

from scrapy.core.scraper import Scraper
from scrapy.crawler import Crawler

from newscrawl.items import PageItem

logger = logging.getLogger(__name__)


class ItemReinjector(Protocol):
    """Runs items through the whole pipeline chain, and wakes the engine when they are done."""

    async def reinject(self, item: PageItem) -> bool:
        """Process the item through every pipeline; False, untouched, if the crawl is closing."""
        ...

    def request_idle_check(self) -> None:
        """Ask the engine to check now whether the spider is idle (and may close)."""
        ...


class EngineReinjector:
    """Re-injects through the running engine's scraper, as if a callback had yielded the item.

    The scraper counts the item as in progress, so the spider does not go idle under it, and
    the usual item_scraped / item_dropped signals and stats follow.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._warned: set[str] = set()

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
            if scraper.slot is not None and scraper.slot.closing is not None:
                self._finish_scraper_close(scraper)
        return True

    def request_idle_check(self) -> None:
        """Run the engine's idle check on the next loop turn instead of at its 5 s heartbeat.

        Scrapy 2.19 re-checks idleness only when a download or a response's scrape ends, and
        otherwise every 5 s (ExecutionEngine._SLOT_HEARTBEAT_INTERVAL). Items re-injected
        without a response end neither way, so the crawl would close (or start its final
        flush) up to 5 s late. There is no public call for this: engine.crawl() wakes the
        engine only with a real request, which every request_scheduled handler would see.
        `_slot.nextcall` is the engine's own CallLaterOnce for that check; scheduling it when
        it is already scheduled does nothing, and a closing engine returns from it at once.
        """
        engine = self.crawler.engine
        if engine is None or engine.spider is None:
            return
        nextcall = getattr(getattr(engine, "_slot", None), "nextcall", None)
        schedule = getattr(nextcall, "schedule", None)
        if callable(schedule):
            schedule()
        else:
            self._warn_once(
                "nextcall",
                "Cannot wake this Scrapy engine (no _slot.nextcall): crawls end at its next"
                " idle heartbeat, up to 5 s after the last page is stored",
            )

    def _finish_scraper_close(self, scraper: Scraper) -> None:
        """Let a closing scraper finish once our item was its last one in progress.

        Scrapy 2.19 checks whether a closing scraper is done only when a *response* finishes;
        an item without one would leave Scraper.close_spider_async() waiting forever, and no
        public method triggers that check.
        """
        check = getattr(scraper, "_check_if_closing", None)
        if callable(check):
            check()
        else:
            self._warn_once(
                "check_if_closing",
                "Cannot tell this Scrapy scraper that re-injected items are done"
                " (no _check_if_closing): closing a crawl during a flush may hang",
            )

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            logger.warning(message)
