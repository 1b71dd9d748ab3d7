"""Sitemaps (urlset, sitemapindex, Google News) parsed safely with lxml, keeping news metadata."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin

from lxml import etree

GZIP_MAGIC = b"\x1f\x8b"
# The sitemap protocol caps an uncompressed sitemap at 50 MB.
DEFAULT_MAX_SIZE = 50 * 1024 * 1024
_CHUNK = 64 * 1024


class SitemapError(ValueError):
    """A sitemap could not be read: bad gzip, or larger than allowed once decompressed."""


@dataclass(frozen=True)
class SitemapEntry:
    """One <url> or <sitemap> element, with the Google News fields when present."""

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


@dataclass(frozen=True)
class ParsedSitemap:
    """A parsed sitemap: `kind` is "urlset", "sitemapindex" or "" when it is neither."""

    kind: str
    entries: tuple[SitemapEntry, ...] = ()


def build_safe_parser() -> etree.XMLParser:
    """Return an XML parser that expands no entities, fetches nothing and refuses huge trees."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        recover=True,
        remove_comments=True,
        remove_pis=True,
    )


def is_gzip(data: bytes) -> bool:
    """True when the bytes start with the gzip magic number."""
    return data[:2] == GZIP_MAGIC


def decompress_gzip(data: bytes, max_size: int = DEFAULT_MAX_SIZE) -> bytes:
    """Gunzip `data`, refusing output larger than `max_size` bytes (gzip bombs)."""
    decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    output = bytearray()
    pending = data
    try:
        while pending:
            output += decompressor.decompress(pending, _CHUNK)
            if len(output) > max_size:
                raise SitemapError(f"gzip body exceeds {max_size} bytes once decompressed")
            pending = decompressor.unconsumed_tail
            if decompressor.eof:
                break
    except zlib.error as exc:
        if not output:
            raise SitemapError(f"invalid gzip body: {exc}") from exc
    if not output and not decompressor.eof:
        raise SitemapError("truncated gzip body")
    return bytes(output)


def parse_sitemap(body: bytes, base_url: str | None = None) -> ParsedSitemap:
    """Parse a sitemap document; relative <loc> values resolve against `base_url`."""
    if not body.strip():
        return ParsedSitemap(kind="")
    try:
        root = etree.fromstring(body, parser=build_safe_parser())
    except etree.XMLSyntaxError:
        return ParsedSitemap(kind="")
    if root is None:
        return ParsedSitemap(kind="")
    kind = etree.QName(root).localname
    if kind not in ("urlset", "sitemapindex"):
        return ParsedSitemap(kind="")
    child_name = "url" if kind == "urlset" else "sitemap"
    entries: list[SitemapEntry] = []
    for element in root:
        if not isinstance(element.tag, str) or etree.QName(element).localname != child_name:
            continue
        entry = build_sitemap_entry(element, base_url)
        if entry is not None:
            entries.append(entry)
    return ParsedSitemap(kind=kind, entries=tuple(entries))


def build_sitemap_entry(element: etree._Element, base_url: str | None) -> SitemapEntry | None:
    """Read one <url>/<sitemap> element; None when it has no <loc>."""
    fields: dict[str, str] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        name = etree.QName(child).localname
        if name in ("loc", "lastmod"):
            fields.setdefault(name, _element_text(child))
        elif name == "news":
            # Only news:* fields: image:title and video:title must not pass for a headline.
            for news_field in child.iter():
                if isinstance(news_field.tag, str) and news_field is not child:
                    fields.setdefault(etree.QName(news_field).localname, _element_text(news_field))
    loc = fields.get("loc")
    if not loc:
        return None
    keywords = tuple(k.strip() for k in fields.get("keywords", "").split(",") if k.strip())
    return SitemapEntry(
        loc=urljoin(base_url, loc) if base_url else loc,
        lastmod=parse_w3c_datetime(fields.get("lastmod")),
        news_title=fields.get("title") or None,
        news_publication_date=parse_w3c_datetime(fields.get("publication_date")),
        news_keywords=keywords,
        news_language=fields.get("language") or None,
    )


def _element_text(element: etree._Element) -> str:
    return " ".join((element.text or "").split())


def parse_w3c_datetime(value: str | None) -> datetime | None:
    """Parse a W3C datetime ("2026-11-22", "2026-11-22T10:00:00Z", ...); naive means UTC."""
    if not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def sitemap_urls_from_robots(body: bytes, base_url: str) -> list[str]:
    """Return the absolute URLs of the `Sitemap:` lines of a robots.txt body."""
    urls: list[str] = []
    for raw_line in body.splitlines():
        line = raw_line.split(b"#", 1)[0].strip()
        key, sep, value = line.partition(b":")
        if not sep or key.strip().lower() != b"sitemap":
            continue
        try:
            url = urljoin(base_url, value.strip().decode("utf-8"))
        except UnicodeDecodeError:
            continue
        if url and url not in urls:
            urls.append(url)
    return urls
