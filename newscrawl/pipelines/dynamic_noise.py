"""DynamicNoisePipeline: drop link-heavy and short blocks (related links, teasers, ads)."""

from __future__ import annotations

from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import ExtractionConfig, remove_dynamic_noise
from newscrawl.items import PageItem
from newscrawl.pipelines.document_stage import run_stage
from newscrawl.pipelines.extraction_config import build_extraction_config, read_extraction_workers
from newscrawl.pipelines.extraction_pool_worker import DYNAMIC_NOISE

COMPONENT = DYNAMIC_NOISE


class DynamicNoisePipeline:
    """Runs the dynamic-noise stage on the item's Document."""

    def __init__(
        self, config: ExtractionConfig, stats: StatsCollector, *, deferred: bool = False
    ) -> None:
        self.config = config
        self.stats = stats
        # With an extraction pool the stage only lists itself on the item; the pool runs it.
        self.deferred = deferred

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("NEWSCRAWL_DYNAMIC_NOISE_ENABLED", True):
            raise NotConfigured("dynamic noise removal is off (NEWSCRAWL_DYNAMIC_NOISE_ENABLED)")
        assert crawler.stats is not None
        deferred = read_extraction_workers(crawler.settings) > 0
        return cls(build_extraction_config(crawler.settings), crawler.stats, deferred=deferred)

    def process_item(self, item: Any) -> Any:
        if isinstance(item, PageItem) and self.deferred:
            item.stages.append(COMPONENT)
        elif isinstance(item, PageItem):
            run_stage(
                item,
                lambda document: remove_dynamic_noise(document, self.config),
                component=COMPONENT,
                stats=self.stats,
            )
        return item
