"""ExtractionStagePipeline: the shared shape of the three extraction stage pipelines."""

from __future__ import annotations

from typing import Any, ClassVar, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import Document, ExtractionConfig, SiteTemplate
from newscrawl.extraction.stages import StageInputs, find_stage
from newscrawl.items import PageItem
from newscrawl.pipelines.document_stage import run_stage
from newscrawl.pipelines.extraction_config import build_extraction_config, read_extraction_workers


class ExtractionStagePipeline:
    """Runs one extraction stage on the item's Document, or lists it for the extraction pool."""

    # The stage's name in newscrawl.extraction.stages.STAGES, and its stats component.
    component: ClassVar[str]
    # The setting that switches the stage off, and what the stage does, for NotConfigured.
    enabled_setting: ClassVar[str]
    description: ClassVar[str]

    def __init__(
        self, config: ExtractionConfig, stats: StatsCollector, *, deferred: bool = False
    ) -> None:
        self.config = config
        self.stats = stats
        # With an extraction pool the stage only lists itself on the item; the pool runs it.
        self.deferred = deferred

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool(cls.enabled_setting, True):
            raise NotConfigured(f"{cls.description} is off ({cls.enabled_setting})")
        assert crawler.stats is not None
        deferred = read_extraction_workers(crawler.settings) > 0
        return cls(build_extraction_config(crawler.settings), crawler.stats, deferred=deferred)

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem) or not self.applies_to(item):
            return item
        if self.deferred:
            item.stages.append(self.component)
            return item
        run_stage(
            item,
            lambda document: self.apply_stage(document, item),
            component=self.component,
            stats=self.stats,
        )
        return item

    def applies_to(self, item: PageItem) -> bool:
        """Whether the stage has anything to do on this page."""
        return True

    def apply_stage(self, document: Document, item: PageItem) -> None:
        """Run the declared stage of this pipeline on the page's Document."""
        template = item.template if isinstance(item.template, SiteTemplate) else None
        inputs = StageInputs(template, item.title, self.config, item.template_includes_page)
        find_stage(self.component).run(document, inputs)
