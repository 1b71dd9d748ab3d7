"""Items passed from the spiders through the extraction pipelines to storage."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


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
    body: bytes
    encoding: str | None = None
    title: str | None = None
    feed_url: str | None = None
    published: datetime | None = None
    authors: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    fetched_at: datetime = field(default_factory=_now)
    status: int = 200
    # filled by the pipelines
    page_id: int | None = None
    template: Any = None
    document: Any = None
    extraction_mode: str | None = None
    article: Any = None
