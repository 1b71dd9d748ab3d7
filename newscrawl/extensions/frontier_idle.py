"""FrontierIdleExtension: a worker of a shared crawl waits a while before closing when idle.

With a shared Redis queue, one worker can run dry while the others are still fetching feeds
that will fill the queue again. The worker stays open until it has been idle for
NEWSCRAWL_FRONTIER_IDLE_CLOSE seconds in a row (any response resets the clock); Scrapy checks
an idle spider every few seconds, and a request that arrives in the queue ends the idleness.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Self

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl import settings as project_settings
from newscrawl.stats_keys import FRONTIER_IDLE_IDLE_WAITS, count_event

logger = logging.getLogger(__name__)



class FrontierIdleExtension:
    """Delays the close of an idle worker so that it keeps taking work from the shared queue."""

    def __init__(self, grace_seconds: float, stats: StatsCollector) -> None:
        self.grace_seconds = grace_seconds
        self.stats = stats
        self._idle_since: float | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        grace = crawler.settings.getfloat(
            "NEWSCRAWL_FRONTIER_IDLE_CLOSE", project_settings.NEWSCRAWL_FRONTIER_IDLE_CLOSE
        )
        if grace <= 0:
            raise NotConfigured("idle workers close at once (NEWSCRAWL_FRONTIER_IDLE_CLOSE)")
        assert crawler.stats is not None
        extension = cls(grace, crawler.stats)
        crawler.signals.connect(extension.on_spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(extension.on_response_received, signal=signals.response_received)
        return extension

    def on_response_received(self, **kwargs: Any) -> None:
        self._idle_since = None

    def on_spider_idle(self) -> None:
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
            count_event(self.stats, FRONTIER_IDLE_IDLE_WAITS)
            logger.info(
                "Queue empty; waiting up to %.0f s for other workers to add requests",
                self.grace_seconds,
            )
        if now - self._idle_since < self.grace_seconds:
            raise DontCloseSpider
