"""Parse a PageItem once; every extraction stage reuses the Document it leaves on the item.

Inline extraction only (NEWSCRAWL_EXTRACTION_WORKERS = 0); with a process pool the page is
parsed in the worker (extraction_pool_worker.py) and the tree never reaches the crawl process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import Document, parse_document
from newscrawl.items import PageItem
from newscrawl.pipelines.page_items import decode_body
from newscrawl.stats_keys import STAGE_KEYS, count_event

logger = logging.getLogger(__name__)


def ensure_document(item: PageItem) -> Document:
    """The item's parsed Document, parsing the body on first use."""
    if item.document is None:
        item.document = parse_document(decode_body(item.body, item.encoding), url=item.url)
    document: Document = item.document
    return document


def run_stage(
    item: PageItem, stage: Callable[[Document], None], *, component: str, stats: StatsCollector
) -> None:
    """Run one extraction stage on the item's Document; a failing stage is logged and skipped.

    Later stages and build_article cope with any stage having been skipped, so a page that
    trips one stage still becomes an article instead of crashing the crawl.
    """
    try:
        document = ensure_document(item)
    except Exception:
        logger.warning("Cannot parse %s", item.url, exc_info=True)
        count_event(stats, STAGE_KEYS[component]["unparsable"])
        return
    try:
        stage(document)
    except Exception:
        logger.warning("%s stage failed on %s; skipped", component, item.url, exc_info=True)
        count_event(stats, STAGE_KEYS[component]["failed"])
        return
    count_event(stats, STAGE_KEYS[component]["applied"])
