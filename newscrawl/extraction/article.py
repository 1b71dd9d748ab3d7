"""The extracted article."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Article:
    """A clean article: text paragraphs are separated by blank lines."""

    title: str
    text: str
    html: str
    published: datetime | None = None
    authors: list[str] = field(default_factory=list)
    language: str | None = None
    canonical_url: str | None = None
    image_url: str | None = None
    image_caption: str | None = None
    # The page's summary (og:description...), else the first paragraph of the text.
    description: str | None = None
    site_name: str | None = None
    # The page's own tags and keywords (article:tag, keywords, JSON-LD), deduplicated.
    tags: list[str] = field(default_factory=list)
    modified: datetime | None = None
    # The page's own headline where it differs from `title` (a feed's or news sitemap's title).
    page_headline: str | None = None
    method: str = "single"
    config_version: str = ""
