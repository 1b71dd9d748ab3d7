"""Plain values passed in and out of the repositories, free of ORM state."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

# Group keys are indexed, and a PostgreSQL B-tree entry holds at most 2,704 bytes: a longer
# key keeps its start and ends in a digest of the whole, so distinct groups stay distinct.
MAX_GROUP_KEY_CHARS = 500
GROUP_KEY_DIGEST_CHARS = 32


def build_group_key(site: str, category: str) -> str:
    """The key of a (site, category) neighbour group."""
    key = f"{site}|{category}"
    if len(key) <= MAX_GROUP_KEY_CHARS:
        return key
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    kept = key[: MAX_GROUP_KEY_CHARS - GROUP_KEY_DIGEST_CHARS - 1]
    return f"{kept}#{digest[:GROUP_KEY_DIGEST_CHARS]}"


@dataclass(frozen=True)
class PageRecord:
    """A fetched page as the spiders saw it."""

    url: str
    site: str
    category: str
    body: bytes
    fetched_at: datetime
    encoding: str | None = None
    title: str | None = None
    feed_url: str | None = None
    published_at: datetime | None = None
    authors: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    http_status: int = 200

    @property
    def group_key(self) -> str:
        return build_group_key(self.site, self.category)


@dataclass(frozen=True)
class StoredPage:
    """A page loaded back from the `pages` table, body decompressed."""

    id: int
    record: PageRecord
    status: str


# A template version: its group and when it was learned (a re-learned one has a new time).
TemplateKey = tuple[str, datetime]


@dataclass(frozen=True)
class TemplateRecord:
    """A stored static-noise template of one group (`template` None: blob not loaded)."""

    group_key: str
    site: str
    category: str
    template: bytes | None
    format_version: int
    page_count: int
    last_page_id: int
    config_version: str
    learned_at: datetime

    @property
    def key(self) -> TemplateKey:
        return (self.group_key, self.learned_at)


@dataclass(frozen=True)
class LearnedTemplate:
    """What a learning function hands back to the repository to store."""

    template: bytes
    format_version: int
    page_count: int
    config_version: str


@dataclass(frozen=True)
class Admission:
    """The outcome of storing a page: its id and what its group looks like now."""

    page_id: int
    template: TemplateRecord | None
    pending_in_group: int
    pages_since_template: int


@dataclass(frozen=True)
class PendingGroup:
    """A group with pages waiting for extraction."""

    group_key: str
    site: str
    category: str
    pending: int


@dataclass(frozen=True)
class ArticleRecord:
    """An extracted article, ready to be upserted by URL."""

    url: str
    title: str
    text: str
    html: str
    site: str
    category: str
    fetched_at: datetime
    extracted_at: datetime
    extraction_method: str
    config_version: str
    canonical_url: str | None = None
    published_at: datetime | None = None
    authors: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    language: str | None = None
    image_url: str | None = None
    image_caption: str | None = None
    description: str | None = None
    site_name: str | None = None
    tags: list[str] = field(default_factory=list)
    modified_at: datetime | None = None
    page_headline: str | None = None
    feed: str | None = None
