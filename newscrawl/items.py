"""Items passed from the spiders through the extraction pipelines to storage."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Annotations only: the item module stays light for the spiders that build items.
    from newscrawl.extraction import Article, SiteTemplate


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class PageItem:
    """A fetched article page with what the feed or sitemap said about it.

    The spiders fill the first block of fields. The pipelines fill the rest; `document`
    carries the parsed tree from stage to stage and is never stored.
    """

    url: str
    site: str
    category: str
    # Kept out of repr: Scrapy logs the whole item when it is dropped.
    body: bytes = field(repr=False)
    encoding: str | None = None
    title: str | None = None
    feed_url: str | None = None
    published: datetime | None = None
    authors: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    fetched_at: datetime = field(default_factory=_now)
    status: int = 200
    # Filled by the pipelines. page_id: the row in `pages` once stored. template: the group's
    # SiteTemplate, None in single-page mode. extraction_mode: "neighbours" or "single" once
    # the buffer decided; re-injected items carry it and the buffer lets them through. stages:
    # the stage pipelines list themselves here; ArticleExtractionPipeline runs them (in a
    # worker process, or inline) and sets article: the extracted Article, or extraction_error:
    # why there is none; storage then fails the page with it. template_includes_page: the
    # template was learned from this page too, so static noise judges the page against the
    # others only.
    page_id: int | None = None
    template: SiteTemplate | None = field(default=None, repr=False)
    template_includes_page: bool = False
    extraction_mode: str | None = None
    article: Article | None = field(default=None, repr=False)
    # The words of article.text, counted where the article was extracted.
    word_count: int | None = None
    stages: list[str] = field(default_factory=list)
    extraction_error: str | None = None
