"""Feed documents (RSS 0.9x/1.0/2.0, Atom) to plain entries, and feed discovery in HTML pages."""

from __future__ import annotations

import calendar
import io
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser
import lxml.html
from lxml import etree

from newscrawl.categories import normalize_category

FEED_TYPES = frozenset(
    {
        "application/rss+xml",
        "application/atom+xml",
        "application/rdf+xml",
        "application/feed+xml",
        "application/x-rss+xml",
        "application/x-atom+xml",
    }
)


@dataclass(frozen=True)
class FeedEntry:
    """What a feed says about one article."""

    link: str
    title: str | None = None
    published: datetime | None = None
    authors: tuple[str, ...] = ()
    category: str | None = None
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedFeed:
    """A parsed feed: its entries with a link, and how many entries had none."""

    version: str
    title: str | None
    category: str | None
    entries: tuple[FeedEntry, ...] = ()
    entries_without_link: tuple[str, ...] = field(default=())

    @property
    def is_feed(self) -> bool:
        """True when the document was recognised as RSS or Atom."""
        return bool(self.version) or bool(self.entries) or bool(self.entries_without_link)


def parse_feed(body: bytes, url: str, content_type: str | None = None) -> ParsedFeed:
    """Parse a feed document fetched from `url`; relative links resolve against `url`."""
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    # A file object, never bytes or str: feedparser would fetch a URL or open a local
    # path given as a string, and the crawl owns every fetch.
    parsed = feedparser.parse(io.BytesIO(body), response_headers=headers)
    feed_info: Mapping[str, Any] = parsed.get("feed", {})
    feed_category = _first_tag(feed_info)
    entries: list[FeedEntry] = []
    without_link: list[str] = []
    for raw in parsed.get("entries", []):
        entry = build_feed_entry(raw, url)
        if entry is None:
            without_link.append(str(raw.get("title") or raw.get("id") or "(untitled)"))
        else:
            entries.append(entry)
    return ParsedFeed(
        version=str(parsed.get("version") or ""),
        title=_clean_text(feed_info.get("title")),
        category=feed_category,
        entries=tuple(entries),
        entries_without_link=tuple(without_link),
    )


def build_feed_entry(raw: Mapping[str, Any], base_url: str) -> FeedEntry | None:
    """Turn one feedparser entry into a FeedEntry; None when it has no usable link."""
    link = _entry_link(raw)
    absolute = urljoin(base_url, link) if link else ""
    # feedparser falls back on ids such as "urn:uuid:..." that are no page to fetch.
    if urlsplit(absolute).scheme not in ("http", "https"):
        return None
    tags = _tag_terms(raw)
    return FeedEntry(
        link=absolute,
        title=_clean_text(raw.get("title")),
        published=_entry_date(raw),
        authors=_entry_authors(raw),
        category=normalize_category(tags[0]) if tags else None,
        keywords=tuple(tags),
    )


def discover_feed_links(body: bytes | str, base_url: str) -> list[str]:
    """Return the absolute URLs of the feeds an HTML page announces with <link rel=alternate>."""
    try:
        tree = lxml.html.document_fromstring(body)
    except (etree.ParserError, ValueError):
        return []
    found: list[str] = []
    for link in tree.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        kind = (link.get("type") or "").lower().split(";")[0].strip()
        href = (link.get("href") or "").strip()
        if "alternate" in rel and kind in FEED_TYPES and href:
            absolute = urljoin(base_url, href)
            if absolute not in found:
                found.append(absolute)
    return found


def _entry_link(raw: Mapping[str, Any]) -> str | None:
    link = raw.get("link")
    if isinstance(link, str) and link.strip():
        return link.strip()
    for candidate in raw.get("links", []) or []:
        href = candidate.get("href")
        if href and candidate.get("rel", "alternate") == "alternate":
            return str(href).strip()
    guid = raw.get("id")
    if raw.get("guidislink") and isinstance(guid, str) and guid.startswith(("http://", "https://")):
        return guid
    return None


def _entry_date(raw: Mapping[str, Any]) -> datetime | None:
    for key in ("published_parsed", "updated_parsed", "created_parsed"):
        value = raw.get(key)
        if isinstance(value, time.struct_time):
            return datetime.fromtimestamp(calendar.timegm(value), UTC)
    return None


def _entry_authors(raw: Mapping[str, Any]) -> tuple[str, ...]:
    names: list[str] = []
    for author in raw.get("authors", []) or []:
        name = _clean_text(author.get("name")) if isinstance(author, Mapping) else None
        if name and name not in names:
            names.append(name)
    if not names:
        single = _clean_text(raw.get("author"))
        if single:
            names.append(single)
    return tuple(names)


def _tag_terms(raw: Mapping[str, Any]) -> list[str]:
    terms: list[str] = []
    for tag in raw.get("tags", []) or []:
        term = _clean_text(tag.get("term") or tag.get("label"))
        if term and term not in terms:
            terms.append(term)
    return terms


def _first_tag(feed_info: Mapping[str, Any]) -> str | None:
    terms = _tag_terms(feed_info)
    if terms:
        return normalize_category(terms[0])
    single = _clean_text(feed_info.get("category"))
    return normalize_category(single) if single else None


def _clean_text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text or None
