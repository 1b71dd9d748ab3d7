"""ExtractionStagePipeline: the shared shape of the three extraction stage pipelines."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl.items import PageItem


class ExtractionStagePipeline:
    """Lists its stage on the item; ArticleExtractionPipeline runs the listed stages in order.

    The pipeline is where a stage is switched off (its NEWSCRAWL_*_ENABLED setting) and where a
    page it has nothing to do on is counted; the stage itself runs with the others in
    `extract_page_job`, inline or in a worker process.
    """

    # The stage's name in newscrawl.extraction.stages.STAGES, and its stats component.
    component: ClassVar[str]
    # The setting that switches the stage off, and what the stage does, for NotConfigured.
    enabled_setting: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool(cls.enabled_setting, True):
            raise NotConfigured(f"{cls.description} is off ({cls.enabled_setting})")
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_item(self, item: Any) -> Any:
        if isinstance(item, PageItem) and self.applies_to(item):
            item.stages.append(self.component)
        return item

    def applies_to(self, item: PageItem) -> bool:
        """Whether the stage has anything to do on this page."""
        return True
