"""Build the project's middlewares the way Scrapy does, bound to a test crawler."""

from __future__ import annotations

from typing import Any, TypeVar

from scrapy.crawler import Crawler
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

T = TypeVar("T")


def build_middleware(cls: type[T], settings: dict[str, Any] | None = None) -> tuple[T, Crawler]:
    """The middleware and its crawler, whose stats the tests read."""
    crawler = get_crawler(settings_dict=settings or {})
    return build_from_crawler(cls, crawler), crawler


def stat(crawler: Crawler, key: str) -> int:
    """An integer counter of the crawler (0 when absent)."""
    assert crawler.stats is not None
    return int(crawler.stats.get_value(key, 0))
