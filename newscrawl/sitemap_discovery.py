"""Where a site's sitemaps are: its robots.txt `Sitemap:` lines and the well-known paths."""

from __future__ import annotations

import re

from newscrawl.sitemaps import resolve_location, strip_utf8_bom

# Where ultimate-sitemap-parser looks for sitemaps a site does not announce in robots.txt.
WELL_KNOWN_SITEMAP_PATHS = (
    "/sitemap.xml",
    "/sitemap.xml.gz",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/sitemap_index.xml.gz",
    "/sitemap-index.xml.gz",
    "/.sitemap.xml",
    "/sitemap",
    "/admin/config/search/xmlsitemap",
    "/sitemap/sitemap-index.xml",
    "/sitemap_news.xml",
    "/sitemap-news.xml",
    "/sitemap_news.xml.gz",
    "/sitemap-news.xml.gz",
    "/news-sitemap.xml",
)
_ROBOTS_SITEMAP_KEYS = (b"sitemap", b"site-map")


def sitemap_urls_from_robots(body: bytes, base_url: str) -> list[str]:
    """Return the URLs of the `Sitemap:` (or `Site-map:`) lines of a robots.txt body.

    Any casing, CR/LF/CRLF line ends, a leading BOM; relative URLs resolve against `base_url`.
    """
    urls: list[str] = []
    for raw_line in strip_utf8_bom(body).replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
        line = strip_utf8_bom(raw_line.strip())
        key, sep, value = line.partition(b":")
        if not sep or key.strip().lower() not in _ROBOTS_SITEMAP_KEYS:
            continue
        # "#" starts a comment only after whitespace: it may be part of a URL's fragment.
        text = re.split(r"\s#", value.decode("utf-8", errors="replace"), maxsplit=1)[0].strip()
        if not text:
            continue
        url = resolve_location(base_url, text)
        if url not in urls:
            urls.append(url)
    return urls
