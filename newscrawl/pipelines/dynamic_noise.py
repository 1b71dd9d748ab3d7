"""DynamicNoisePipeline: drop link-heavy and short blocks (related links, teasers, ads)."""

from __future__ import annotations

from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import ExtractionConfig, remove_dynamic_noise
from newscrawl.items import PageItem
from newscrawl.pipelines.document_stage import run_stage
from newscrawl.pipelines.extraction_config import build_extraction_config

COMPONENT = "dynamic_noise"


class DynamicNoisePipeline:
    """Runs the dynamic-noise stage on the item's Document."""

    def __init__(self, config: ExtractionConfig, stats: StatsCollector) -> None:
        self.config = config
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("NEWSCRAWL_DYNAMIC_NOISE_ENABLED", True):
            raise NotConfigured("dynamic noise removal is off (NEWSCRAWL_DYNAMIC_NOISE_ENABLED)")
        assert crawler.stats is not None
        return cls(build_extraction_config(crawler.settings), crawler.stats)

    def process_item(self, item: Any) -> Any:
        if isinstance(item, PageItem):
            run_stage(
                item,
                lambda document: remove_dynamic_noise(document, self.config),
                component=COMPONENT,
                stats=self.stats,
            )
        return item
