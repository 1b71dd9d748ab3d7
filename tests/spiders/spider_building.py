"""Build spiders bound to a test crawler, and responses for their callbacks."""

from __future__ import annotations

from typing import Any, TypeVar

from scrapy import Request, Spider
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse
from scrapy.utils.test import get_crawler

SpiderT = TypeVar("SpiderT", bound=Spider)


def build_spider(
    cls: type[SpiderT], settings: dict[str, Any] | None = None, **kwargs: Any
) -> SpiderT:
    """Return a spider created the way Scrapy creates it, with working stats."""
    crawler = get_crawler(cls, settings or {})
    return cls.from_crawler(crawler, **kwargs)


def build_response(
    url: str,
    body: bytes,
    *,
    kind: type[Response] = XmlResponse,
    request: Request | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """Return a response to `request` (or a plain GET of `url`) with the given body."""
    request = request or Request(url)
    if issubclass(kind, TextResponse):
        return kind(url, body=body, request=request, headers=headers, encoding="utf-8")
    return kind(url, body=body, request=request, headers=headers)


def stats_of(spider: Spider) -> dict[str, Any]:
    """Return the crawler stats of a spider."""
    assert spider.crawler.stats is not None
    return spider.crawler.stats.get_stats()


__all__ = [
    "HtmlResponse", "TextResponse", "XmlResponse", "build_response", "build_spider", "stats_of"
]
