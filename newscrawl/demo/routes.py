"""What a demo site serves at each path, independent of any HTTP server."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from newscrawl.demo.content import DemoSite
from newscrawl.demo.layouts import render_article_page, render_index_page
from newscrawl.demo.syndication import (
    render_article_sitemap,
    render_atom,
    render_news_sitemap,
    render_robots,
    render_rss,
    render_sitemap_index,
)

HTML = "text/html; charset=utf-8"
XML = "application/xml; charset=utf-8"


@dataclass(frozen=True)
class DemoResponse:
    """A response of the demo network before it goes on the wire."""

    status: int
    content_type: str
    body: bytes
    last_modified: datetime | None = None
    # Served with Content-Encoding: gzip when the client accepts it.
    compressible: bool = False


NOT_FOUND = DemoResponse(404, "text/plain; charset=utf-8", b"not found")


def render_path(site: DemoSite, base_url: str, path: str) -> DemoResponse:
    """Return the response of `site` (served at `base_url`) for a request path."""
    path = path.split("?", 1)[0].split("#", 1)[0]
    latest = site.articles[0].published
    if path == "/robots.txt":
        return DemoResponse(200, "text/plain; charset=utf-8", render_robots(base_url).encode())
    if path in ("/", "/index.html"):
        return DemoResponse(200, HTML, render_index_page(site, base_url).encode())
    if path == "/rss.xml":
        return _feed(render_rss(site, base_url), latest, "application/rss+xml; charset=utf-8")
    if path == "/atom.xml":
        return _feed(render_atom(site, base_url), latest, "application/atom+xml; charset=utf-8")
    if path == "/sitemap_index.xml":
        return _feed(render_sitemap_index(base_url, site.articles[0]), latest, XML)
    if path == "/sitemaps/articles.xml.gz":
        return DemoResponse(
            200, "application/gzip", render_article_sitemap(base_url, site.articles), latest
        )
    if path == "/news-sitemap.xml":
        response = _feed(render_news_sitemap(site, base_url), latest, XML)
        return DemoResponse(200, XML, response.body, latest, compressible=True)
    parts = [p for p in path.split("/") if p]
    if parts and parts[0] in site.categories:
        category = parts[0]
        if len(parts) == 1:
            return DemoResponse(200, HTML, render_index_page(site, base_url, category).encode())
        if parts[1:] == ["rss.xml"]:
            newest = site.articles_in(category)[0].published
            rss = render_rss(site, base_url, category)
            return _feed(rss, newest, "application/rss+xml; charset=utf-8")
        article = site.find_article(path)
        if article is not None:
            page = render_article_page(site, article, base_url)
            return DemoResponse(200, HTML, page.encode(), article.published)
    return NOT_FOUND


def _feed(text: str, last_modified: datetime, content_type: str) -> DemoResponse:
    return DemoResponse(200, content_type, text.encode("utf-8"), last_modified)
