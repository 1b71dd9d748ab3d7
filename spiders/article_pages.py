"""Article requests and the PageItems built from their responses, for both spiders."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scrapy import Request, Spider
from scrapy.http import Response, TextResponse
from twisted.python.failure import Failure

from newscrawl.categories import site_from_url
from newscrawl.fetch_failures import describe_fetch_error
from newscrawl.items import PageItem
from newscrawl.stats_keys import count_event

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ArticleHint:
    """What a feed or sitemap said about an article before it is fetched."""

    category: str
    feed_url: str | None = None
    title: str | None = None
    published: datetime | None = None
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = field(default=())


def build_article_request(
    url: str,
    hint: ArticleHint,
    callback: Callable[..., Any],
    errback: Callable[[Failure], Any],
) -> Request:
    """Return the request that fetches an article page, carrying its hint to the callback."""
    return Request(url, callback=callback, errback=errback, cb_kwargs={"hint": hint})


def build_page_item(response: Response, hint: ArticleHint) -> PageItem:
    """Return the PageItem for a fetched article page; the raw body is kept as is."""
    encoding = response.encoding if isinstance(response, TextResponse) else None
    return PageItem(
        url=response.url,
        site=site_from_url(response.url),
        category=hint.category,
        body=response.body,
        encoding=encoding,
        title=hint.title,
        feed_url=hint.feed_url,
        published=hint.published,
        authors=list(hint.authors),
        keywords=list(hint.keywords),
        status=response.status,
    )


def log_article_failure(spider: Spider, failure: Failure, key: str) -> None:
    """Log an article page that could not be fetched and count it."""
    request = getattr(failure, "request", None)
    url = request.url if request is not None else "?"
    logger.warning("Article not fetched: %s (%s)", url, describe_fetch_error(failure.value, url))
    count_event(spider.crawler.stats, key)
