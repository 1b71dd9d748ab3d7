"""Build the ExtractionConfig of a crawl from its settings."""

from __future__ import annotations

from dataclasses import replace

from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from newscrawl.extraction import ExtractionConfig


def build_extraction_config(settings: BaseSettings) -> ExtractionConfig:
    """The named base config with the stage switches of the enabled pipelines."""
    name = settings.get("NEWSCRAWL_EXTRACTION_CONFIG", "default")
    if name == "default":
        base = ExtractionConfig()
    elif name == "paper":
        base = ExtractionConfig.paper()
    else:
        raise NotConfigured(
            f"NEWSCRAWL_EXTRACTION_CONFIG must be 'default' or 'paper', not {name!r}"
        )
    return replace(
        base,
        use_static_noise=settings.getbool("NEWSCRAWL_STATIC_NOISE_ENABLED", True),
        use_dynamic_noise=settings.getbool("NEWSCRAWL_DYNAMIC_NOISE_ENABLED", True),
        use_title_relevance=settings.getbool("NEWSCRAWL_TITLE_RELEVANCE_ENABLED", True),
    )
