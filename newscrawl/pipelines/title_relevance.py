"""TitleRelevancePipeline: keep the paragraph group most relevant to the headline."""

from __future__ import annotations

from newscrawl.extraction.stages import TITLE_RELEVANCE
from newscrawl.pipelines.extraction_stage import ExtractionStagePipeline


class TitleRelevancePipeline(ExtractionStagePipeline):
    """Lists the title-relevance stage, which reads the feed's or sitemap's title of the page."""

    component = TITLE_RELEVANCE
    enabled_setting = "NEWSCRAWL_TITLE_RELEVANCE_ENABLED"
    description = "title relevance selection"
