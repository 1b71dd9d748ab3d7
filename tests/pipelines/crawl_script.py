"""A throw-away crawl of loopback pages through the project's pipelines (run as a subprocess).

Usage: python crawl_script.py BASE_URL DATABASE_URL SETTINGS_JSON PATH...
Prints one "CRAWL_TIMING {json}" line to stderr: signal times of the crawl (monotonic seconds).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import scrapy
from scrapy import signals
from scrapy.core.engine import ExecutionEngine
from scrapy.crawler import Crawler, CrawlerProcess
from scrapy.http import Response
from scrapy.settings import Settings

from newscrawl import settings as project_settings
from newscrawl.categories import category_from_url, site_from_url
from newscrawl.items import PageItem


class LoopbackSpider(scrapy.Spider):
    name = "loopback"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.urls:
            yield scrapy.Request(url, callback=self.parse_page)

    def parse_page(self, response: Response) -> PageItem:
        number = response.url.rsplit("-", 1)[1].split(".")[0]
        return PageItem(
            url=response.url,
            site=site_from_url(response.url),
            category=category_from_url(response.url),
            body=response.body,
            encoding=getattr(response, "encoding", None),
            title=f"Headline number {number}",
            status=response.status,
        )


# Not a Scrapy setting: the seconds between the engine's idle checks (Scrapy's default is 5).
HEARTBEAT_OPTION = "TEST_ENGINE_HEARTBEAT_SECONDS"


class CrawlTiming:
    """Records when the crawl last fetched a page, finished an item, went idle and closed."""

    def __init__(self, crawler: Crawler) -> None:
        self.times: dict[str, float] = {}
        crawler.signals.connect(self.on_item_scraped, signal=signals.item_scraped)
        for signal in (signals.item_dropped, signals.item_error):
            crawler.signals.connect(self.on_item_done, signal=signal)
        crawler.signals.connect(self.on_spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self.on_response, signal=signals.response_received)
        crawler.signals.connect(self.on_spider_closed, signal=signals.spider_closed)

    def on_response(self) -> None:
        self.times["last_response"] = time.monotonic()

    def on_item_done(self) -> None:
        self.times["last_item_done"] = time.monotonic()

    def on_item_scraped(self) -> None:
        self.times["last_item_scraped"] = self.times["last_item_done"] = time.monotonic()

    def on_spider_idle(self) -> None:
        # The last idle check is the one that let the spider close.
        self.times["last_spider_idle"] = time.monotonic()

    def on_spider_closed(self) -> None:
        self.times["spider_closed"] = time.monotonic()


def main(base_url: str, database_url: str, extra_settings: str, *paths: str) -> None:
    extra = json.loads(extra_settings)
    heartbeat = extra.pop(HEARTBEAT_OPTION, None)
    if heartbeat is not None:
        # Test-only: with no idle heartbeat, the crawl can end only when something wakes the
        # engine's idle check, so a crawl that should close by itself either does or hangs.
        ExecutionEngine._SLOT_HEARTBEAT_INTERVAL = float(heartbeat)
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.update(
        {
            "SPIDER_MODULES": [],
            "ROBOTSTXT_OBEY": False,
            "NEWSCRAWL_DATABASE_URL": database_url,
            # A crawl of these few pages now ends within about a second of its start.
            "NEWSCRAWL_PROGRESS_INTERVAL": 0.2,
            "LOG_LEVEL": "INFO",
            "TELNETCONSOLE_ENABLED": False,
            **extra,
        }
    )
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(LoopbackSpider)
    timing = CrawlTiming(crawler)
    process.crawl(crawler, urls=[base_url + path for path in paths])
    process.start()
    print("CRAWL_TIMING", json.dumps(timing.times), file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
