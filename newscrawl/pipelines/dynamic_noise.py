"""DynamicNoisePipeline: drop link-heavy and short blocks (related links, teasers, ads)."""

from __future__ import annotations

from newscrawl.extraction.stages import DYNAMIC_NOISE
from newscrawl.pipelines.extraction_stage import ExtractionStagePipeline


class DynamicNoisePipeline(ExtractionStagePipeline):
    """Lists the dynamic-noise stage for every page."""

    component = DYNAMIC_NOISE
    enabled_setting = "NEWSCRAWL_DYNAMIC_NOISE_ENABLED"
    description = "dynamic noise removal"
