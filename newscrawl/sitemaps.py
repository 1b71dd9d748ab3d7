"""Sitemaps read safely and incrementally: XML urlset/sitemapindex, plain text, RSS/Atom, JSON Feed.

Bodies may be gzipped (whatever the headers said). The XML is streamed through an lxml pull
parser that expands no entities and fetches nothing, so memory stays flat however many
entries a document lists; an entry cut off by a truncated body is dropped and counted.
"""

from __future__ import annotations

import codecs
import contextlib
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urljoin

from lxml import etree

from newscrawl.dates import parse_w3c_datetime
from newscrawl.feeds import detect_wide_encoding, parse_json_feed, transcode_wide_text
from newscrawl.plain_text import to_plain_text

GZIP_MAGIC = b"\x1f\x8b"
# The sitemap protocol caps an uncompressed sitemap at 50 MB and 50,000 URLs.
DEFAULT_MAX_SIZE = 50 * 1024 * 1024
MAX_URLS_PER_SITEMAP = 50_000
_CHUNK = 64 * 1024
# Root element -> document kind, and the element that holds one entry in that kind.
_ROOT_KINDS = {
    "urlset": "urlset", "sitemapindex": "sitemapindex", "rss": "rss", "rdf": "rss",
    "feed": "atom",
}
# A "&" that starts no entity or character reference (libxml2 would stall on it).
_MAX_REFERENCE = 40
_STRAY_AMPERSAND = re.compile(rb"&(?![A-Za-z_][\w.-]{0,31};|#[0-9]{1,7};|#[xX][0-9A-Fa-f]{1,6};)")
_TAIL_BYTES = 512
_LAST_END_TAG = re.compile(rb"</\s*(?:[\w.-]+:)?([\w.-]+)\s*>\s*\Z")
_ENTRY_TAGS = {"urlset": "url", "sitemapindex": "sitemap", "rss": "item", "atom": "entry"}
_FEED_DATE_FIELDS = ("pubdate", "published", "issued", "date", "created", "updated", "modified")


class SitemapError(ValueError):
    """A sitemap could not be read: bad gzip, or larger than allowed once decompressed."""


@dataclass(frozen=True)
class SitemapEntry:
    """One listed URL, with the Google News (or feed item) fields when present."""

    loc: str
    lastmod: datetime | None = None
    news_title: str | None = None
    news_publication_date: datetime | None = None
    news_keywords: tuple[str, ...] = ()
    news_language: str | None = None

    @property
    def date(self) -> datetime | None:
        """The publication date if known, else the last modification date."""
        return self.news_publication_date or self.lastmod

    @property
    def has_news(self) -> bool:
        """True when the entry says more about its article than where it is."""
        return bool(self.news_title or self.news_publication_date or self.news_keywords)


@dataclass(frozen=True)
class ParsedSitemap:
    """A parsed sitemap.

    `kind` is "urlset", "sitemapindex", "text", "rss", "atom", "jsonfeed", or "" when the
    document is none of them. `truncated` counts entries cut off by the end of the body,
    `over_limit` those past the per-document limit; `error` says why a body was refused.
    """

    kind: str
    entries: tuple[SitemapEntry, ...] = ()
    truncated: int = 0
    over_limit: int = 0
    error: str | None = None

    @property
    def lists_sitemaps(self) -> bool:
        """True for a sitemap index, whose entries are more sitemaps."""
        return self.kind == "sitemapindex"


_SAFE_PARSER_OPTIONS: dict[str, bool] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": False,
    "recover": True,
    "remove_comments": True,
    "remove_pis": True,
}


def is_gzip(data: bytes) -> bool:
    """True when the bytes start with the gzip magic number."""
    return data[:2] == GZIP_MAGIC


class _Inflated:
    """The chunks of a body, gunzipped on the fly when it is gzip; notes a cut-off stream."""

    def __init__(self, body: bytes, max_size: int) -> None:
        self.body = body
        self.max_size = max_size
        self.cut_off = False

    def __iter__(self) -> Iterator[bytes]:
        if not is_gzip(self.body):
            for start in range(0, len(self.body), _CHUNK):
                yield self.body[start : start + _CHUNK]
            return
        decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        pending, produced = self.body, 0
        while pending and not decompressor.eof:
            try:
                chunk = decompressor.decompress(pending, _CHUNK)
            except zlib.error as exc:
                if not produced:
                    raise SitemapError(f"invalid gzip body: {exc}") from exc
                self.cut_off = True
                return
            produced += len(chunk)
            if produced > self.max_size:
                raise SitemapError(f"gzip body exceeds {self.max_size} bytes once decompressed")
            pending = decompressor.unconsumed_tail
            if chunk:
                yield chunk
        if not decompressor.eof:
            if not produced:
                raise SitemapError("truncated gzip body")
            self.cut_off = True


def decompress_gzip(data: bytes, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
    """Gunzip `data`, refusing output larger than `max_size` bytes (gzip bombs)."""
    if not is_gzip(data):
        raise SitemapError("invalid gzip body: no gzip header")
    return b"".join(_Inflated(data, max_size))


def parse_sitemap(
    body: bytes,
    base_url: str | None = None,
    *,
    max_size: int = DEFAULT_MAX_SIZE,
    max_urls: int = MAX_URLS_PER_SITEMAP,
) -> ParsedSitemap:
    """Parse a sitemap document, gzipped or not; relative XML locations resolve against `base_url`.

    A gzip body that is invalid or inflates past `max_size` is refused with its `error`.
    """
    try:
        return _read_sitemap(body, base_url, max_size, max_urls)
    except SitemapError as exc:
        return ParsedSitemap(kind="", error=str(exc))


def _read_sitemap(
    body: bytes, base_url: str | None, max_size: int, max_urls: int, *, transcoded: bool = False
) -> ParsedSitemap:
    inflated = _Inflated(body, max_size)
    chunks = iter(inflated)
    head = b""
    for chunk in chunks:
        head += chunk
        if head.lstrip(b"\xef\xbb\xbf \t\r\n"):
            break
    everything = _prepend(head, chunks)
    if not transcoded and detect_wide_encoding(head) is not None:
        # UTF-16/32 (rare in sitemaps): read whole, as UTF-8.
        utf8, _ = transcode_wide_text(b"".join(everything), None)
        return _read_sitemap(utf8, base_url, max_size, max_urls, transcoded=True)
    start = strip_utf8_bom(head).lstrip()
    if not start:
        return ParsedSitemap(kind="")
    if start.startswith(b"<"):
        reader = _XmlEntryReader(base_url, max_urls)
        for chunk in everything:
            if not reader.feed(chunk):
                break
        return reader.close()
    if start.startswith((b"{", b"[")):
        return _read_json_feed(b"".join(everything), base_url, max_size, max_urls)
    if start[:8].lower().startswith((b"http://", b"https://")):
        return _read_text_sitemap(everything, inflated, max_urls)
    return ParsedSitemap(kind="")


def _prepend(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from rest


def strip_utf8_bom(data: bytes) -> bytes:
    """The bytes without a leading UTF-8 byte order mark."""
    return data[3:] if data.startswith(codecs.BOM_UTF8) else data


class _EntryCounter:
    """Collects entries up to the per-document limit and counts the rest."""

    def __init__(self, max_urls: int) -> None:
        self.max_urls = max_urls
        self.entries: list[SitemapEntry] = []
        self.truncated = 0
        self.over_limit = 0

    @property
    def full(self) -> bool:
        return len(self.entries) >= self.max_urls

    def add(self, entry: SitemapEntry | None) -> None:
        if entry is None:
            return
        if self.full:
            self.over_limit += 1
        else:
            self.entries.append(entry)

    def build(self, kind: str) -> ParsedSitemap:
        return ParsedSitemap(kind, tuple(self.entries), self.truncated, self.over_limit)


class _XmlEntryReader:
    """Stream XML into entries.

    libxml2 reports an element's end as soon as its end tag is parsed, and the elements it
    only closes at the end of input when it must recover. When the document lacks the root's
    end tag (a cut-off body), the entries closed that way were cut off and are dropped.
    """

    def __init__(self, base_url: str | None, max_urls: int) -> None:
        self.base_url = base_url
        self.parser = etree.XMLPullParser(events=("start", "end"), **_SAFE_PARSER_OPTIONS)
        self.counter = _EntryCounter(max_urls)
        self.kind: str | None = None
        self.root_name = ""
        self.entry_tag = ""
        self.depth = 0
        self.entry_depth: int | None = None
        self.held_back = b""
        self.in_cdata = False
        self.tail = b""

    def feed(self, chunk: bytes) -> bool:
        """Parse one more chunk; False once the document is known not to be a sitemap."""
        data = self.held_back + chunk
        # A reference or CDATA marker near the end may be completed by the next chunk.
        start = max(0, len(data) - _MAX_REFERENCE)
        cut = max(data.rfind(b"&", start), data.rfind(b"<", start), data.rfind(b"]", start))
        data, self.held_back = (data[:cut], data[cut:]) if cut >= 0 else (data, b"")
        return self._parse(data)

    def close(self) -> ParsedSitemap:
        """Finish the document; entries closed only now were cut off unless the root ended."""
        self._parse(self.held_back)
        with contextlib.suppress(etree.XMLSyntaxError):
            self.parser.close()
        self._read_events(complete=self._root_is_closed())
        return self.counter.build(self.kind or "")

    def _parse(self, data: bytes) -> bool:
        if not data:
            return self.kind != ""
        data = self._escape_stray_ampersands(data)
        self.tail = (self.tail + data)[-_TAIL_BYTES:]
        try:
            self.parser.feed(data)
        except etree.XMLSyntaxError:
            return False
        self._read_events(complete=True)
        return self.kind != ""

    def _escape_stray_ampersands(self, data: bytes) -> bytes:
        """Escape each bare "&" outside CDATA sections.

        Sitemaps often carry one in a query string; libxml2 recovers from it only at the end
        of input, which would make every later entry look cut off.
        """
        parts: list[bytes] = []
        position = 0
        while position < len(data):
            if self.in_cdata:
                end = data.find(b"]]>", position)
                if end < 0:
                    parts.append(data[position:])
                    break
                parts.append(data[position : end + 3])
                position, self.in_cdata = end + 3, False
                continue
            start = data.find(b"<![CDATA[", position)
            if start < 0:
                parts.append(_STRAY_AMPERSAND.sub(b"&amp;", data[position:]))
                break
            parts.append(_STRAY_AMPERSAND.sub(b"&amp;", data[position:start]) + b"<![CDATA[")
            position, self.in_cdata = start + 9, True
        return b"".join(parts)

    def _root_is_closed(self) -> bool:
        match = _LAST_END_TAG.search(self.tail)
        return match is not None and match.group(1).decode("ascii", "replace").lower() == (
            self.root_name
        )

    def _read_events(self, *, complete: bool) -> None:
        for event, element in self.parser.read_events():
            if not isinstance(element.tag, str) or self.kind == "":
                continue
            name = etree.QName(element).localname.lower()
            if event == "start":
                self.depth += 1
                if self.kind is None:
                    self.root_name = name
                    self.kind = _ROOT_KINDS.get(name, "")
                    self.entry_tag = _ENTRY_TAGS.get(self.kind, "")
                elif self.entry_depth is None and name == self.entry_tag:
                    self.entry_depth = self.depth
                continue
            if self.depth == self.entry_depth:
                self.entry_depth = None
                self._finish_entry(element, complete)
            elif self.entry_depth is None and self.depth > 1:
                # Whatever lies between entries is not kept: memory stays flat.
                element.clear()
            self.depth -= 1

    def _finish_entry(self, element: etree._Element, complete: bool) -> None:
        if not complete:
            self.counter.truncated += 1
        elif self.counter.full:
            self.counter.over_limit += 1
        elif self.kind in ("urlset", "sitemapindex"):
            self.counter.add(build_sitemap_entry(element, self.base_url))
        else:
            self.counter.add(build_feed_item_entry(element, self.base_url))
        element.clear()
        parent = element.getparent()
        if parent is not None:
            parent.remove(element)


def resolve_location(base_url: str | None, loc: str) -> str:
    """`loc` made absolute against `base_url`, or as it is when it cannot be."""
    if not base_url:
        return loc
    try:
        return urljoin(base_url, loc)
    except ValueError:
        return loc  # the spider's URL check names what is wrong with it


def build_sitemap_entry(element: etree._Element, base_url: str | None) -> SitemapEntry | None:
    """Read one <url>/<sitemap> element; None when it has no <loc>."""
    fields: dict[str, str] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        name = etree.QName(child).localname.lower()
        if name in ("loc", "lastmod"):
            fields.setdefault(name, _element_text(child))
        elif name == "news":
            # Only news:* fields: image:title and video:title must not pass for a headline.
            for news_field in child.iter():
                if isinstance(news_field.tag, str) and news_field is not child:
                    fields.setdefault(
                        etree.QName(news_field).localname.lower(), _element_text(news_field)
                    )
    loc = fields.get("loc")
    if not loc:
        return None
    keywords = tuple(k.strip() for k in fields.get("keywords", "").split(",") if k.strip())
    return SitemapEntry(
        loc=resolve_location(base_url, loc),
        lastmod=parse_w3c_datetime(fields.get("lastmod")),
        news_title=to_plain_text(fields.get("title")),
        news_publication_date=parse_w3c_datetime(fields.get("publication_date")),
        news_keywords=keywords,
        news_language=fields.get("language") or None,
    )


def build_feed_item_entry(element: etree._Element, base_url: str | None) -> SitemapEntry | None:
    """Read one RSS <item> or Atom <entry> of a feed used as a sitemap; None without a link."""
    link = guid = ""
    title: str | None = None
    dates: dict[str, str] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        name = etree.QName(child).localname.lower()
        if name == "link":
            rel = (child.get("rel") or "alternate").lower()
            href = (child.get("href") or _element_text(child)).strip()
            if href and rel == "alternate" and not link:
                link = href
        elif name == "guid" and child.get("isPermaLink", "true").lower() != "false":
            guid = _element_text(child)
        elif name == "title" and title is None:
            title = to_plain_text("".join(child.itertext()))
        elif name in _FEED_DATE_FIELDS:
            dates.setdefault(name, _element_text(child))
    about = element.get("{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about") or ""
    loc = link or (guid if guid.lower().startswith(("http://", "https://")) else "") or about
    if not loc:
        return None
    published = next(
        (d for d in (parse_w3c_datetime(dates.get(f)) for f in _FEED_DATE_FIELDS) if d), None
    )
    return SitemapEntry(
        loc=resolve_location(base_url, loc), news_title=title, news_publication_date=published
    )


def _read_text_sitemap(
    chunks: Iterable[bytes], inflated: _Inflated, max_urls: int
) -> ParsedSitemap:
    """One URL per line; a last line without its newline in a cut-off gzip is dropped."""
    counter = _EntryCounter(max_urls)
    pending = b""
    for chunk in chunks:
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        for line in lines:
            counter.add(_text_line_entry(line))
    if pending.strip():
        if inflated.cut_off:
            counter.truncated += 1
        else:
            counter.add(_text_line_entry(pending))
    return counter.build("text")


def _text_line_entry(line: bytes) -> SitemapEntry | None:
    text = strip_utf8_bom(line).strip().decode("utf-8", errors="replace")
    return SitemapEntry(loc=text) if text else None


def _read_json_feed(
    body: bytes, base_url: str | None, max_size: int, max_urls: int
) -> ParsedSitemap:
    """A JSON Feed used as a sitemap."""
    if len(body) > max_size:
        raise SitemapError(f"body exceeds {max_size} bytes")
    parsed = parse_json_feed(body, base_url or "")
    if parsed is None:
        return ParsedSitemap(kind="")
    counter = _EntryCounter(max_urls)
    for entry in parsed.entries:
        counter.add(
            SitemapEntry(
                loc=entry.link, news_title=entry.title, news_publication_date=entry.published
            )
        )
    return counter.build("jsonfeed")


def _element_text(element: etree._Element) -> str:
    return " ".join((element.text or "").split())
