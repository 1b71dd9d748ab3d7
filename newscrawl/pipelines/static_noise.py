"""StaticNoisePipeline: drop the group's template noise (menus, footers) from the page."""

from __future__ import annotations

from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import ExtractionConfig, SiteTemplate, remove_static_noise
from newscrawl.items import PageItem
from newscrawl.pipelines.document_stage import run_stage
from newscrawl.pipelines.extraction_config import build_extraction_config, read_extraction_workers
from newscrawl.pipelines.extraction_pool_worker import STATIC_NOISE
from newscrawl.stats_keys import build_stats_key

COMPONENT = STATIC_NOISE


class StaticNoisePipeline:
    """Applies the template the neighbour buffer chose for the page."""

    def __init__(
        self, config: ExtractionConfig, stats: StatsCollector, *, deferred: bool = False
    ) -> None:
        self.config = config
        self.stats = stats
        # With an extraction pool the stage only lists itself on the item; the pool runs it.
        self.deferred = deferred

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("NEWSCRAWL_STATIC_NOISE_ENABLED", True):
            raise NotConfigured("static noise removal is off (NEWSCRAWL_STATIC_NOISE_ENABLED)")
        assert crawler.stats is not None
        deferred = read_extraction_workers(crawler.settings) > 0
        return cls(build_extraction_config(crawler.settings), crawler.stats, deferred=deferred)

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        template = item.template
        if not isinstance(template, SiteTemplate):
            # Single-page mode: nothing to remove; the next stage parses the page.
            self.stats.inc_value(build_stats_key(COMPONENT, "skipped_no_template"))
            return item
        if self.deferred:
            item.stages.append(COMPONENT)
            return item
        run_stage(
            item,
            lambda document: remove_static_noise(document, template, self.config),
            component=COMPONENT,
            stats=self.stats,
        )
        return item
