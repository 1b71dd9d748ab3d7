"""TrackingParamsMiddleware: strip tracking parameters and fragments so duplicates collapse."""

from __future__ import annotations

import logging
from typing import Self
from urllib.parse import parse_qsl, urlsplit

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector
from scrapy.utils.request import RequestFingerprinterProtocol
from w3lib.url import url_query_cleaner

from newscrawl import settings as project_settings
from newscrawl.stats_keys import TRACKING_PARAMS_STRIPPED, count_event

logger = logging.getLogger(__name__)

# Campaign and click ids added by newsletters, ad networks and social sites.
DEFAULT_TRACKING_PARAMS = tuple(project_settings.NEWSCRAWL_TRACKING_PARAMS)


def find_tracking_params(url: str, patterns: tuple[str, ...]) -> list[str]:
    """The query parameter names of `url` that match a pattern (`name` or prefix `name*`)."""
    names = {name for name, _ in parse_qsl(urlsplit(url).query, keep_blank_values=True)}
    return sorted(name for name in names if _matches(name.lower(), patterns))


def remove_tracking_params(url: str, patterns: tuple[str, ...] = DEFAULT_TRACKING_PARAMS) -> str:
    """The URL without its tracking parameters and fragment; other parameters keep their order."""
    tracking = find_tracking_params(url, patterns)
    if tracking:
        return url_query_cleaner(url, tracking, remove=True, unique=False, keep_fragments=False)
    return url.split("#", 1)[0]


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(
        name.startswith(p[:-1]) if p.endswith("*") else name == p for p in patterns
    )


class TrackingParamsMiddleware:
    """Reschedule requests under their clean URL, so the duplicate filter sees one URL.

    A request returned from process_request goes back through the scheduler, whose
    duplicate filter drops it when the clean URL was already crawled (dupefilter/filtered).
    """

    def __init__(
        self,
        patterns: tuple[str, ...],
        stats: StatsCollector,
        fingerprinter: RequestFingerprinterProtocol,
    ) -> None:
        self.patterns = tuple(p.lower() for p in patterns)
        self.stats = stats
        self.fingerprinter = fingerprinter

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool(
            "NEWSCRAWL_STRIP_TRACKING_PARAMS", project_settings.NEWSCRAWL_STRIP_TRACKING_PARAMS
        ):
            raise NotConfigured("tracking parameters are kept (NEWSCRAWL_STRIP_TRACKING_PARAMS)")
        assert crawler.stats is not None
        patterns = settings.getlist(
            "NEWSCRAWL_TRACKING_PARAMS", project_settings.NEWSCRAWL_TRACKING_PARAMS
        )
        return cls(tuple(patterns), crawler.stats, crawler.request_fingerprinter)

    def process_request(self, request: Request) -> Request | None:
        clean = remove_tracking_params(request.url, self.patterns)
        if clean == request.url:
            return None
        logger.info("Stripped tracking parameters: %s -> %s", request.url, clean)
        count_event(self.stats, TRACKING_PARAMS_STRIPPED)
        cleaned = request.replace(url=clean)
        # Only a fragment differed: the filter already let this very page through once and
        # would now drop it as its own duplicate.
        if self.fingerprinter.fingerprint(cleaned) == self.fingerprinter.fingerprint(request):
            cleaned = cleaned.replace(dont_filter=True)
        return cleaned
