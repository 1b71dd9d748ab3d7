"""TitleRelevancePipeline: keep the paragraph group most relevant to the headline."""

from __future__ import annotations

from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import ExtractionConfig, select_relevant_paragraphs
from newscrawl.items import PageItem
from newscrawl.pipelines.document_stage import run_stage
from newscrawl.pipelines.extraction_config import build_extraction_config, read_extraction_workers
from newscrawl.pipelines.extraction_pool_worker import TITLE_RELEVANCE

COMPONENT = TITLE_RELEVANCE


class TitleRelevancePipeline:
    """Runs the title-relevance stage with the feed's or sitemap's title of the page."""

    def __init__(
        self, config: ExtractionConfig, stats: StatsCollector, *, deferred: bool = False
    ) -> None:
        self.config = config
        self.stats = stats
        # With an extraction pool the stage only lists itself on the item; the pool runs it.
        self.deferred = deferred

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("NEWSCRAWL_TITLE_RELEVANCE_ENABLED", True):
            raise NotConfigured(
                "title relevance selection is off (NEWSCRAWL_TITLE_RELEVANCE_ENABLED)"
            )
        assert crawler.stats is not None
        deferred = read_extraction_workers(crawler.settings) > 0
        return cls(build_extraction_config(crawler.settings), crawler.stats, deferred=deferred)

    def process_item(self, item: Any) -> Any:
        if isinstance(item, PageItem) and self.deferred:
            item.stages.append(COMPONENT)
        elif isinstance(item, PageItem):
            title = item.title
            run_stage(
                item,
                lambda document: select_relevant_paragraphs(document, title, self.config),
                component=COMPONENT,
                stats=self.stats,
            )
        return item
