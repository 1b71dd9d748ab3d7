"""Read the extraction settings of a crawl: its ExtractionConfig and where extraction runs."""

from __future__ import annotations

from dataclasses import replace

from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from newscrawl import settings as project_settings
from newscrawl.extraction import ExtractionConfig
from newscrawl.spider_arguments import CrawlArgumentError


def build_extraction_config(settings: BaseSettings) -> ExtractionConfig:
    """The named base config with the stage switches of the enabled pipelines."""
    name = settings.get("NEWSCRAWL_EXTRACTION_CONFIG", project_settings.NEWSCRAWL_EXTRACTION_CONFIG)
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
        use_static_noise=settings.getbool(
            "NEWSCRAWL_STATIC_NOISE_ENABLED", project_settings.NEWSCRAWL_STATIC_NOISE_ENABLED
        ),
        use_dynamic_noise=settings.getbool(
            "NEWSCRAWL_DYNAMIC_NOISE_ENABLED", project_settings.NEWSCRAWL_DYNAMIC_NOISE_ENABLED
        ),
        use_title_relevance=settings.getbool(
            "NEWSCRAWL_TITLE_RELEVANCE_ENABLED", project_settings.NEWSCRAWL_TITLE_RELEVANCE_ENABLED
        ),
    )


def read_extraction_workers(settings: BaseSettings) -> int:
    """NEWSCRAWL_EXTRACTION_WORKERS: 0 = extract inline on the reactor thread, N = a pool of N.

    Absent means 0: crawlers built without the project settings (component tests) extract
    inline; crawls get the project default from newscrawl/settings.py.
    """
    workers = settings.getint("NEWSCRAWL_EXTRACTION_WORKERS", 0)
    if workers < 0:
        # Not NotConfigured: without ArticleExtractionPipeline no page would get an article,
        # and storage would fail every one; the crawl must not start.
        raise CrawlArgumentError(
            f"-s NEWSCRAWL_EXTRACTION_WORKERS={workers}: expected 0 or more worker processes,"
            " for example -s NEWSCRAWL_EXTRACTION_WORKERS=1 (0 = extract in the crawl process)"
        )
    return workers
