"""RedirectLoopMiddleware: name redirect loops instead of letting them vanish silently.

Scrapy's duplicate filter drops a redirect back to an URL already fetched, so a loop
ends without a word. Seen before RedirectMiddleware, a redirect to an URL of its own
chain is refused with a log line, a counter, and an errback naming the loop.
"""

from __future__ import annotations

import logging
from typing import Self
from urllib.parse import urljoin

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.statscollectors import StatsCollector
from w3lib.url import safe_url_string

from newscrawl.stats_keys import REDIRECT_LOOPS_LOOP, count_event

logger = logging.getLogger(__name__)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class RedirectLoop(IgnoreRequest):
    """A redirect led back to an URL already in its own chain."""


def find_redirect_loop(request: Request, response: Response) -> list[str] | None:
    """The chain of URLs when the response redirects back into it, else None."""
    location = response.headers.get(b"Location")
    if response.status not in REDIRECT_STATUSES or not location:
        return None
    target = safe_url_string(urljoin(request.url, location.decode("latin-1")))
    chain = [*request.meta.get("redirect_urls", []), request.url]
    return [*chain, target] if target in chain else None


class RedirectLoopMiddleware:
    """Refuse a redirect back into its own chain, logged and counted."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("REDIRECT_ENABLED", True):
            raise NotConfigured("redirects are not followed (REDIRECT_ENABLED)")
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_response(self, request: Request, response: Response) -> Response:
        chain = find_redirect_loop(request, response)
        if chain is None:
            return response
        loop = " -> ".join(chain)
        logger.warning("Redirect loop: %s", loop)
        count_event(self.stats, REDIRECT_LOOPS_LOOP)
        raise RedirectLoop(f"redirect loop: {loop}")
