"""MetaRefreshGuardMiddleware: keep pages whose meta refresh leads nowhere a crawler can go.

Scrapy's MetaRefreshMiddleware follows `<meta http-equiv=refresh>` and drops the page that
carried it. A refresh to `javascript:` makes it raise, and a refresh back to the page
itself is dropped by the duplicate filter: either way a fetched page would vanish. Seen
just before MetaRefreshMiddleware, such a page is kept and the refresh is ignored.
"""

from __future__ import annotations

import logging
from typing import Self
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.statscollectors import StatsCollector
from scrapy.utils.response import get_meta_refresh

from newscrawl.stats_keys import META_REFRESH_GUARD_IGNORED, count_event

logger = logging.getLogger(__name__)

FOLLOWED_SCHEMES = frozenset({"http", "https"})


def strip_fragment(url: str) -> str:
    """The URL without its fragment, which no request sends."""
    return url.split("#", 1)[0]


def find_unfollowable_refresh(request: Request, target: str) -> str | None:
    """Why a meta refresh to `target` must not be followed, or None when it may be."""
    scheme = urlsplit(target).scheme.lower()
    if scheme not in FOLLOWED_SCHEMES:
        return f"it points to a {scheme or 'scheme-less'} URL"
    chain = {strip_fragment(u) for u in [*request.meta.get("redirect_urls", []), request.url]}
    if strip_fragment(target) in chain:
        return "it points back to the page itself"
    return None


class MetaRefreshGuardMiddleware:
    """Ignore, with a log line and a counter, meta refreshes that would lose the page."""

    def __init__(self, ignore_tags: list[str], stats: StatsCollector) -> None:
        self.ignore_tags = ignore_tags
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool("METAREFRESH_ENABLED", True):
            raise NotConfigured("meta refreshes are not followed (METAREFRESH_ENABLED)")
        assert crawler.stats is not None
        return cls(settings.getlist("METAREFRESH_IGNORE_TAGS"), crawler.stats)

    def process_response(self, request: Request, response: Response) -> Response:
        if not isinstance(response, HtmlResponse) or request.meta.get("dont_redirect"):
            return response
        _, target = get_meta_refresh(response, ignore_tags=self.ignore_tags)
        if not target:
            return response
        reason = find_unfollowable_refresh(request, target)
        if reason is None:
            return response
        logger.warning(
            "Ignoring the meta refresh of %s to %s: %s; the page itself is kept",
            response.url, target, reason,
        )
        count_event(self.stats, META_REFRESH_GUARD_IGNORED)
        # MetaRefreshMiddleware, next in line, leaves the response alone.
        request.meta["dont_redirect"] = True
        return response
