"""StaticNoisePipeline: drop the group's template noise (menus, footers) from the page."""

from __future__ import annotations

from newscrawl.extraction.stages import STATIC_NOISE
from newscrawl.items import PageItem
from newscrawl.pipelines.extraction_stage import ExtractionStagePipeline
from newscrawl.stats_keys import STATIC_NOISE_SKIPPED_NO_TEMPLATE, count_event


class StaticNoisePipeline(ExtractionStagePipeline):
    """Applies the template the neighbour buffer chose for the page."""

    component = STATIC_NOISE
    enabled_setting = "NEWSCRAWL_STATIC_NOISE_ENABLED"
    description = "static noise removal"

    def applies_to(self, item: PageItem) -> bool:
        if item.template is not None:
            return True
        # Single-page mode: no template, nothing to remove.
        count_event(self.stats, STATIC_NOISE_SKIPPED_NO_TEMPLATE)
        return False
