"""SQLAlchemy 2.0 typed models of the article store.

The full-text search objects (SQLite FTS5 table and triggers, PostgreSQL tsvector
column and GIN index) are dialect-specific and live only in the migrations.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from newscrawl.storage.types import NormalisedJson, NormalisedText, UtcDateTime

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

PAGE_STATUSES = ("pending", "extracted", "failed")


class Base(DeclarativeBase):
    """Declarative base with stable constraint names."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # Every string column is unbounded text in one normal form (storage/text_normaliser.py).
    type_annotation_map = {
        datetime: UtcDateTime(),
        str: NormalisedText(),
        dict[str, Any]: NormalisedJson(),
        list[str]: NormalisedJson(),
    }


class Site(Base):
    """A news site, keyed by its host name."""

    __tablename__ = "sites"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(unique=True)
    first_seen_at: Mapped[datetime]
    last_seen_at: Mapped[datetime]


class Feed(Base):
    """A feed or sitemap the crawl reads article links from."""

    __tablename__ = "feeds"

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(unique=True)
    site: Mapped[str] = mapped_column(index=True)
    category: Mapped[str | None]
    etag: Mapped[str | None]
    last_modified: Mapped[str | None]
    last_polled_at: Mapped[datetime | None]
    next_poll_at: Mapped[datetime | None] = mapped_column(index=True)
    # Consecutive failures; a success resets it, NEWSCRAWL_FEED_MAX_FAILURES marks the feed dead.
    failure_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    is_dead: Mapped[bool] = mapped_column(default=False, server_default=false())
    first_seen_at: Mapped[datetime]
    interval_seconds: Mapped[float | None] = mapped_column(Float)
    last_status: Mapped[int | None]
    last_error: Mapped[str | None]
    entries_seen: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    entries_new: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    polls: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    not_modified: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Page(Base):
    """A fetched article page, kept compressed until (and after) it is extracted."""

    __tablename__ = "pages"
    __table_args__ = (
        CheckConstraint(
            "status IN ('pending', 'extracted', 'failed')", name="status_allowed"
        ),
        Index("ix_pages_group_key_status", "group_key", "status"),
        Index("ix_pages_group_key_id", "group_key", "id"),
        Index("ix_pages_status_id", "status", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(unique=True)
    site: Mapped[str]
    category: Mapped[str]
    group_key: Mapped[str]
    body: Mapped[bytes] = mapped_column(LargeBinary)
    body_compression: Mapped[str] = mapped_column(default="zlib")
    encoding: Mapped[str | None]
    title: Mapped[str | None]
    feed_url: Mapped[str | None]
    published_at: Mapped[datetime | None]
    authors: Mapped[list[str]]
    keywords: Mapped[list[str]]
    http_status: Mapped[int]
    fetched_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(default="pending")
    error: Mapped[str | None]
    updated_at: Mapped[datetime]


class Template(Base):
    """The learned static-noise template of one (site, category) group."""

    __tablename__ = "templates"

    id: Mapped[int] = mapped_column(primary_key=True)
    group_key: Mapped[str] = mapped_column(unique=True)
    site: Mapped[str]
    category: Mapped[str]
    template: Mapped[bytes] = mapped_column(LargeBinary)
    format_version: Mapped[int]
    page_count: Mapped[int]
    last_page_id: Mapped[int]
    config_version: Mapped[str]
    learned_at: Mapped[datetime]


class Article(Base):
    """An extracted article; one row per article (storage/article_identity.py), updated when
    it is crawled again."""

    __tablename__ = "articles"
    __table_args__ = (
        Index("ix_articles_site_published_at", "site", "published_at"),
        Index("ix_articles_category_published_at", "category", "published_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(unique=True)
    page_id: Mapped[int | None] = mapped_column(
        ForeignKey("pages.id", ondelete="SET NULL"), index=True
    )
    canonical_url: Mapped[str | None]
    title: Mapped[str]
    text: Mapped[str]
    html: Mapped[str]
    published_at: Mapped[datetime | None]
    authors: Mapped[list[str]]
    keywords: Mapped[list[str]]
    language: Mapped[str | None]
    image_url: Mapped[str | None]
    image_caption: Mapped[str | None]
    # The page's summary, else the text's first paragraph (extraction/descriptions.py).
    description: Mapped[str | None]
    site_name: Mapped[str | None]
    # The page's own tags (article:tag, keywords meta, JSON-LD); `keywords` are the feed's.
    tags: Mapped[list[str]] = mapped_column(server_default="[]")
    modified_at: Mapped[datetime | None]
    # The page's own headline where it differs from `title` (a feed's or news sitemap's).
    page_headline: Mapped[str | None]
    site: Mapped[str]
    category: Mapped[str]
    feed: Mapped[str | None]
    fetched_at: Mapped[datetime]
    extracted_at: Mapped[datetime]
    content_hash: Mapped[str] = mapped_column(index=True)
    # A syndicated copy (the same text under another URL) points at the article first stored
    # with that text; None for an original. Copies are linked, never merged.
    duplicate_of: Mapped[int | None] = mapped_column(index=True)
    extraction_method: Mapped[str]
    config_version: Mapped[str]
    word_count: Mapped[int]


class CrawlRun(Base):
    """One crawl process: when it ran and the Scrapy stats it ended with."""

    __tablename__ = "crawl_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    spider: Mapped[str]
    worker: Mapped[str]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    # Written every HEARTBEAT_INTERVAL while the crawl runs (storage/crawl_run_repository.py).
    heartbeat_at: Mapped[datetime | None]
    finish_reason: Mapped[str | None]
    stats: Mapped[dict[str, Any] | None]
