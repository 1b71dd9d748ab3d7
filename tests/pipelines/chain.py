"""The real Scrapy item pipeline manager over our pipelines, for driving them without a crawl."""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem
from scrapy.pipelines import ItemPipelineManager
from scrapy.utils.test import get_crawler

from newscrawl import settings as project_settings
from newscrawl.items import PageItem
from newscrawl.pipelines.neighbour_buffer import NeighbourBufferPipeline
from newscrawl.pipelines.sql_storage import SqlStoragePipeline


def build_test_crawler(database_url: str, **settings: Any) -> Crawler:
    return get_crawler(
        settings_dict={
            "ITEM_PIPELINES": project_settings.ITEM_PIPELINES,
            "NEWSCRAWL_DATABASE_URL": database_url,
            "NEWSCRAWL_NEIGHBOURS": 10,
            **settings,
        }
    )


class PipelineChain:
    """ITEM_PIPELINES built by Scrapy's ItemPipelineManager; re-injection goes back into it.

    The reinjector is the boundary we own between the buffer and the engine's scraper.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.manager = ItemPipelineManager.from_crawler(crawler)
        self.buffer = self._find(NeighbourBufferPipeline)
        self.storage = self._find(SqlStoragePipeline)
        if self.buffer is not None:
            self.buffer.reinjector = self
        self.stored: list[PageItem] = []
        self.dropped: list[tuple[PageItem, DropItem]] = []
        self.idle_checks_requested = 0

    def _find(self, cls: type) -> Any:
        return next((mw for mw in self.manager.middlewares if isinstance(mw, cls)), None)

    @property
    def engine(self) -> Any:
        return self.storage.engine

    async def open(self) -> None:
        await self.manager.open_spider_async()

    async def close(self) -> None:
        await self.manager.close_spider_async()

    async def process(self, item: PageItem) -> PageItem | None:
        """Run one item through the chain as the scraper does; None when it was dropped."""
        try:
            result = await self.manager.process_item_async(item)
        except DropItem as drop:
            self.dropped.append((item, drop))
            return None
        finally:
            # What the item_scraped / item_dropped signal handlers get in a crawl.
            if self.buffer is not None:
                self.buffer.on_item_done(item)
        self.stored.append(result)
        return result

    async def reinject(self, item: PageItem) -> bool:
        await self.process(item)
        return True

    def request_idle_check(self) -> None:
        self.idle_checks_requested += 1

    async def wait_for_flushes(self) -> None:
        await self.buffer.wait_for_flushes()

    def stat(self, key: str) -> int:
        assert self.crawler.stats is not None
        return int(self.crawler.stats.get_value(key, 0))
