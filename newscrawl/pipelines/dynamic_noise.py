"""DynamicNoisePipeline: drop link-heavy and short blocks (related links, teasers, ads)."""

from __future__ import annotations

from newscrawl.extraction.stages import DYNAMIC_NOISE
from newscrawl.pipelines.extraction_stage import ExtractionStagePipeline


class DynamicNoisePipeline(ExtractionStagePipeline):
    """Runs the dynamic-noise stage on the item's Document."""

    component = DYNAMIC_NOISE
    enabled_setting = "NEWSCRAWL_DYNAMIC_NOISE_ENABLED"
    description = "dynamic noise removal"
