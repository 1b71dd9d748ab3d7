"""Feed documents (RSS 0.9x/1.0/2.0, Atom, JSON Feed) to plain entries, and feed discovery.

Feed bytes are made safe for feedparser first: author fields longer than any real one are
emptied (feedparser's e-mail regex is quadratic), character references to surrogates are
replaced (feedparser raises on them) and UTF-16/32 is transcoded to UTF-8.
"""

from __future__ import annotations

import calendar
import codecs
import contextlib
import io
import json
import re
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
from newscrawl.dates import parse_w3c_datetime
from newscrawl.plain_text import to_plain_text

FEED_TYPES = frozenset(
    {
        "application/rss+xml",
        "application/atom+xml",
        "application/rdf+xml",
        "application/feed+xml",
        "application/x-rss+xml",
        "application/x-atom+xml",
        "application/xml",
        "text/xml",
        "text/rss+xml",
        "text/atom+xml",
        "application/feed+json",
        "application/json",
    }
)
JSON_FEED_TYPES = ("application/feed+json", "application/json")
# <a href> links that name a feed, for pages that announce none with <link rel=alternate>.
_FEED_LIKE_HREF = re.compile(
    r"\.(?:rss|rdf|atom|xml)(?:[?#]|$)|(?:^|[/._-])(?:feeds?|rss2?|atom|rdf)(?:[/._?#-]|$)"
    r"|[?&](?:feed|format)=(?:rss|atom|json|feed)",
    re.IGNORECASE,
)
_COMMENTS_FEED = re.compile(r"/comments?/|comments?[-_]?feed|[?&]feed=comments", re.IGNORECASE)
# Longer than any real author field: feedparser's author e-mail regex is quadratic in it.
MAX_AUTHOR_FIELD_BYTES = 1024
_AUTHOR_FIELDS = frozenset(
    {b"author", b"creator", b"managingeditor", b"webmaster", b"name", b"email", b"contributor",
     b"publisher", b"owner"}
)
# A start or end tag; [^<>] keeps the scan linear on unclosed tags.
_TAG = re.compile(rb"<(/?)(?:[A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)[^<>]*>")
_CHARACTER_REFERENCE = re.compile(rb"&#([xX][0-9a-fA-F]+|[0-9]+);")
_XML_DECLARED_ENCODING = re.compile(rb"^(\s*<\?xml[^>]*?encoding\s*=\s*[\"'])[^\"']*")
# Leading bytes of UTF-32/16 text, with or without a BOM (UTF-32 first: it starts like 16).
_WIDE_ENCODINGS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
    (b"<\x00\x00\x00", "utf-32-le"), (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00", "utf-16-le"), (b"\x00<", "utf-16-be"),
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
    """A parsed feed: its entries with a link, and how many entries had none.

    `capped_fields` counts oversized author fields emptied before parsing; `error` says why
    a document could not be parsed at all.
    """

    version: str
    title: str | None
    category: str | None
    entries: tuple[FeedEntry, ...] = ()
    entries_without_link: tuple[str, ...] = field(default=())
    capped_fields: int = 0
    error: str | None = None

    @property
    def is_feed(self) -> bool:
        """True when the document was recognised as RSS or Atom."""
        return bool(self.version) or bool(self.entries) or bool(self.entries_without_link)


def parse_feed(body: bytes, url: str, content_type: str | None = None) -> ParsedFeed:
    """Parse a feed document fetched from `url`; relative links resolve against `url`."""
    if looks_like_json(body, content_type):
        json_feed = parse_json_feed(body, url)
        if json_feed is not None:
            return json_feed
    body, content_type = transcode_wide_text(body, content_type)
    body, capped = cap_author_fields(body)
    body = replace_invalid_references(body)
    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    try:
        # A file object, never bytes or str: feedparser would fetch a URL or open a local
        # path given as a string, and the crawl owns every fetch.
        parsed = feedparser.parse(io.BytesIO(body), response_headers=headers)
    except Exception as exc:  # feedparser has raised on input it should only flag as bozo
        return ParsedFeed(version="", title=None, category=None, error=repr(exc))
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
        capped_fields=capped,
    )


def looks_like_json(body: bytes, content_type: str | None) -> bool:
    """True when the body is announced as JSON or starts like a JSON object."""
    kind = (content_type or "").split(";")[0].strip().lower()
    return kind in JSON_FEED_TYPES or body.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


def parse_json_feed(body: bytes, url: str) -> ParsedFeed | None:
    """Parse a JSON Feed (1.0 or 1.1); None when the body is not one."""
    try:
        data = json.loads(body.decode("utf-8-sig", errors="replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or "jsonfeed.org/version/" not in str(data.get("version")):
        return None
    version = "json" + str(data["version"]).rsplit("/", 1)[-1].replace(".", "")
    entries: list[FeedEntry] = []
    without_link: list[str] = []
    items = data.get("items")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        entry = build_json_feed_entry(item, url)
        if entry is None:
            without_link.append(str(item.get("title") or item.get("id") or "(untitled)"))
        else:
            entries.append(entry)
    title = data.get("title")
    return ParsedFeed(
        version=version,
        title=to_plain_text(title) if isinstance(title, str) else None,
        category=None,
        entries=tuple(entries),
        entries_without_link=tuple(without_link),
    )


def build_json_feed_entry(item: Mapping[str, Any], base_url: str) -> FeedEntry | None:
    """Turn one JSON Feed item into a FeedEntry; None when it has no web page."""
    link = ""
    for key in ("url", "external_url", "id"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            candidate = value.strip()
            with contextlib.suppress(ValueError):
                candidate = urljoin(base_url, candidate) if key != "id" else candidate
            if candidate.lower().startswith(("http://", "https://")):
                link = candidate
                break
    if not link:
        return None
    authors = item.get("authors")
    if not isinstance(authors, list):
        authors = [item["author"]] if isinstance(item.get("author"), dict) else []
    names: list[str] = []
    for author in authors:
        raw_name = author.get("name") if isinstance(author, dict) else None
        name = to_plain_text(raw_name) if isinstance(raw_name, str) else None
        if name and not is_email_only(name) and name not in names:
            names.append(name)
    raw_tags = item.get("tags")
    tags = [t.strip() for t in raw_tags if isinstance(t, str) and t.strip()] if isinstance(
        raw_tags, list
    ) else []
    title = item.get("title")
    published = item.get("date_published") or item.get("date_modified")
    return FeedEntry(
        link=link,
        title=to_plain_text(title) if isinstance(title, str) else None,
        published=parse_w3c_datetime(published) if isinstance(published, str) else None,
        authors=tuple(names),
        category=normalize_category(tags[0]) if tags else None,
        keywords=tuple(dict.fromkeys(tags)),
    )


def detect_wide_encoding(body: bytes) -> str | None:
    """The UTF-16/32 codec a body starts in (BOM, or "<" in XML without one), else None."""
    return next((name for head, name in _WIDE_ENCODINGS if body.startswith(head)), None)


def transcode_wide_text(body: bytes, content_type: str | None) -> tuple[bytes, str | None]:
    """UTF-16/32 bodies as UTF-8 (declaration and Content-Type charset adjusted to match)."""
    encoding = detect_wide_encoding(body)
    if encoding is None:
        return body, content_type
    text = body.decode(encoding, errors="replace").lstrip("\ufeff")
    utf8 = _XML_DECLARED_ENCODING.sub(rb"\1utf-8", text.encode("utf-8"), count=1)
    kind = (content_type or "").split(";")[0].strip()
    return utf8, f"{kind}; charset=utf-8" if kind else None


def cap_author_fields(body: bytes, limit: int = MAX_AUTHOR_FIELD_BYTES) -> tuple[bytes, int]:
    """Empty the author-like elements longer than `limit` bytes; returns the body and how many."""
    spans: list[tuple[int, int]] = []
    open_name: bytes | None = None
    content_start = 0
    for tag in _TAG.finditer(body):
        closing, name = tag.group(1), tag.group(2).lower()
        if open_name is None:
            if not closing and name in _AUTHOR_FIELDS and not tag.group(0).endswith(b"/>"):
                open_name, content_start = name, tag.end()
        elif closing and name == open_name:
            if tag.start() - content_start > limit:
                spans.append((content_start, tag.start()))
            open_name = None
    if open_name is not None and len(body) - content_start > limit:
        spans.append((content_start, len(body)))
    if not spans:
        return body, 0
    parts: list[bytes] = []
    position = 0
    for start, end in spans:
        parts.append(body[position:start])
        position = end
    parts.append(body[position:])
    return b"".join(parts), len(spans)


def replace_invalid_references(body: bytes) -> bytes:
    """Character references to surrogates, NUL or beyond Unicode become U+FFFD."""
    if b"&#" not in body:
        return body
    return _CHARACTER_REFERENCE.sub(_replace_reference, body)


def _replace_reference(match: re.Match[bytes]) -> bytes:
    digits = match.group(1)
    try:
        code = int(digits[1:], 16) if digits[:1] in (b"x", b"X") else int(digits)
    except ValueError:
        return b"&#xFFFD;"
    if code == 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return b"&#xFFFD;"
    return match.group(0)


def is_email_only(value: str) -> bool:
    """True for an author that is only an e-mail address ("jane@example.com")."""
    text = value.strip().strip("<>()")
    return " " not in text and "@" in text


def build_feed_entry(raw: Mapping[str, Any], base_url: str) -> FeedEntry | None:
    """Turn one feedparser entry into a FeedEntry; None when it has no usable link."""
    link = _entry_link(raw)
    try:
        absolute = urljoin(base_url, link) if link else ""
    except ValueError:
        absolute = link or ""  # the spider's URL check logs what is wrong with it
    # feedparser falls back on ids such as "urn:uuid:..." that are no page to fetch.
    if not absolute.lower().startswith(("http://", "https://")):
        return None
    tags = _tag_terms(raw)
    return FeedEntry(
        link=absolute,
        title=to_plain_text(raw.get("title")) if isinstance(raw.get("title"), str) else None,
        published=_entry_date(raw),
        authors=_entry_authors(raw),
        category=normalize_category(tags[0]) if tags else None,
        keywords=tuple(tags),
    )


def discover_feed_links(body: bytes | str, base_url: str) -> list[str]:
    """The absolute URLs of the feeds an HTML page announces with <link rel=alternate>.

    Every feed type counts (RSS, Atom, RDF, XML, JSON Feed). A page that announces none
    gets its <a href> links named like feeds (".rss", "/feed/", "atom.xml"...) instead.
    """
    try:
        tree = lxml.html.document_fromstring(body)
    except (etree.ParserError, ValueError):
        return []
    found: list[str] = []
    for link in tree.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        kind = (link.get("type") or "").lower().split(";")[0].strip()
        href = (link.get("href") or "").strip()
        # WordPress announces its REST API as application/json on every page: no feed.
        if "alternate" in rel and kind in FEED_TYPES and href and "/wp-json/" not in href:
            _add_link(found, base_url, href)
    # Comment feeds list comments, not articles: followed only when nothing else is announced.
    articles = [url for url in found if not _COMMENTS_FEED.search(url)]
    if articles or found:
        return articles or found
    for anchor in tree.iter("a"):
        href = (anchor.get("href") or "").strip()
        if href and is_feed_like_href(href):
            _add_link(found, base_url, href)
    return found


def is_feed_like_href(href: str) -> bool:
    """True for a link whose path or query names a feed ("/feed/", "news.rss", "?format=rss")."""
    try:
        parts = urlsplit(href)
    except ValueError:
        return False
    host = parts.hostname or ""
    if host.startswith("feeds.") or "feedburner." in host:
        return True
    if parts.path.lower().endswith((".html", ".htm")):
        return False  # a page about feeds, not one
    query = "?" + parts.query if parts.query else ""
    return _FEED_LIKE_HREF.search(parts.path + query) is not None


def _add_link(found: list[str], base_url: str, href: str) -> None:
    try:
        absolute = urljoin(base_url, href)
    except ValueError:
        absolute = href  # the spider's URL check logs what is wrong with it
    if absolute not in found:
        found.append(absolute)


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
        if name and not is_email_only(name) and name not in names:
            names.append(name)
    if not names:
        # feedparser's flat "author" falls back on the e-mail address: that is no name.
        single = _clean_text(raw.get("author"))
        if single and not is_email_only(single):
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
