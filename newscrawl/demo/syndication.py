"""Feeds, sitemaps and robots.txt of a demo site."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from email.utils import format_datetime
from xml.sax.saxutils import escape, quoteattr

from newscrawl.demo.content import DemoArticle, DemoSite

NEWS_SITEMAP_SIZE = 10
# Feeds list the newest entries only, as real feeds do; sitemaps list everything.
FEED_SIZE = 50


def render_rss(
    site: DemoSite, base_url: str, category: str | None = None, limit: int | None = FEED_SIZE
) -> str:
    """Return an RSS 2.0 feed of a category (or the whole site): the newest `limit` entries."""
    articles = (site.articles_in(category) if category else site.articles)[:limit]
    # One site links relatively, as some real feeds do; readers must resolve against the feed.
    prefix = "" if site.layout == "courier" else base_url
    items = [
        f"<item><title>{escape(a.title)}</title><link>{escape(prefix + a.path)}</link>"
        f'<guid isPermaLink="false">{escape(site.key + ":" + a.slug)}</guid>'
        f"<pubDate>{format_datetime(a.published, usegmt=True)}</pubDate>"
        + "".join(f"<dc:creator>{escape(name)}</dc:creator>" for name in a.authors)
        + f"<category>{escape(a.category)}</category>"
        f"<description>{escape(a.summary)}</description></item>"
        for a in articles
    ]
    if site.layout == "ledger" and category == site.categories[0]:
        # A live blog entry without a link: readers must skip it and count it.
        items.insert(0, "<item><title>Live: follow the day as it happens</title>"
                        "<description>Updates all day.</description></item>")
    title = f"{site.name} - {category.title()}" if category else site.name
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>'
        f"<title>{escape(title)}</title><link>{escape(base_url)}/</link>"
        f"<description>Latest news from {escape(site.name)}</description>"
        f"<language>en</language>{''.join(items)}</channel></rss>"
    )


def render_atom(site: DemoSite, base_url: str) -> str:
    """Return an Atom feed of the whole site."""
    entries = "".join(
        f"<entry><title>{escape(a.title)}</title>"
        f'<link rel="alternate" type="text/html" href={quoteattr(base_url + a.path)}/>'
        f"<id>tag:{site.key}.demo,2026:{escape(a.slug)}</id>"
        f"<published>{a.published.isoformat()}</published>"
        f"<updated>{a.published.isoformat()}</updated>"
        + "".join(f"<author><name>{escape(name)}</name></author>" for name in a.authors)
        + f"<category term={quoteattr(a.category)}/>"
        f"<summary>{escape(a.summary)}</summary></entry>"
        for a in site.articles[:FEED_SIZE]
    )
    updated = site.articles[0].published.isoformat()
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<title>{escape(site.name)}</title><id>tag:{site.key}.demo,2026:feed</id>"
        f"<updated>{updated}</updated>"
        f'<link rel="self" href={quoteattr(base_url + "/atom.xml")}/>{entries}</feed>'
    )


def render_sitemap_index(base_url: str, latest: DemoArticle) -> str:
    """Return the sitemap index naming the gzip article sitemap and the news sitemap."""
    lastmod = latest.published.isoformat()
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{escape(base_url)}/sitemaps/articles.xml.gz</loc>"
        f"<lastmod>{lastmod}</lastmod></sitemap>"
        f"<sitemap><loc>{escape(base_url)}/news-sitemap.xml</loc>"
        f"<lastmod>{lastmod}</lastmod></sitemap></sitemapindex>"
    )


def render_article_sitemap(base_url: str, articles: Sequence[DemoArticle]) -> bytes:
    """Return the gzip-compressed urlset of every article, with lastmod."""
    urls = "".join(
        f"<url><loc>{escape(base_url + a.path)}</loc>"
        f"<lastmod>{a.published.strftime('%Y-%m-%d')}</lastmod></url>"
        for a in articles
    )
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )
    return gzip.compress(xml.encode("utf-8"), mtime=0)


def render_news_sitemap(site: DemoSite, base_url: str) -> str:
    """Return the Google News sitemap of the latest articles."""
    urls = "".join(
        f"<url><loc>{escape(base_url + a.path)}</loc><news:news><news:publication>"
        f"<news:name>{escape(site.name)}</news:name><news:language>en</news:language>"
        f"</news:publication><news:publication_date>{a.published.isoformat()}"
        f"</news:publication_date><news:title>{escape(a.title)}</news:title>"
        f"<news:keywords>{escape(', '.join(a.keywords))}</news:keywords></news:news>"
        f"<image:image><image:loc>{escape(base_url)}/img/{a.slug}.jpg</image:loc>"
        f"<image:title>Photo</image:title></image:image></url>"
        for a in site.articles[:NEWS_SITEMAP_SIZE]
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
        f'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">{urls}</urlset>'
    )


def render_robots(base_url: str) -> str:
    """Return robots.txt: everything allowed but search, and the sitemap index."""
    return (
        "User-agent: *\nAllow: /\nDisallow: /search\n\n"
        f"Sitemap: {base_url}/sitemap_index.xml\n"
    )
