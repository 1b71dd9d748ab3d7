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
    method: str = "single"
    config_version: str = ""
