"""`scrapy crawl sitemap -a site=...` over loopback sites, one site per case (issues 17, 21).

One crawl covers every site (each on its own port, so each is its own site); each test
then checks the pages stored for its site, and what the servers were asked for.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from newscrawl.sitemap_discovery import WELL_KNOWN_SITEMAP_PATHS
from tests.spiders.loopback_sites import (
    CrawlOutcome,
    Route,
    SiteServer,
    article_page,
    describe,
    gzipped,
    rss,
    run_crawl,
    serve_sites,
    sitemap_index,
    urlset,
)

TEXT = "text/plain; charset=utf-8"
NEWS_TITLE = "<news:news><news:title>{}</news:title><news:publication_date>{}</news:publication_date></news:news>"  # noqa: E501


def robots(*lines: str) -> Route:
    return Route("\n".join(lines).encode() + b"\n", TEXT)


def robots_forms(site: SiteServer) -> dict[str, Route]:
    # BOM, upper case, "Site-map:", CRLF and relative URLs; /sitemap.xml is also well known.
    body = (
        codecs.BOM_UTF8 + b"SITEMAP: /sm-upper.xml\r\nSite-map: sm-relative.xml\r\n"
        b"# Sitemap: /commented.xml\r\nsitemap:/sitemap.xml\r\nUser-agent: *\r\nDisallow:\r\n"
    )
    return {
        "/robots.txt": Route(body, TEXT),
        "/sm-upper.xml": Route(urlset(site.url("/news/upper.html"))),
        "/sm-relative.xml": Route(urlset(site.url("/news/relative.html"))),
        "/sitemap.xml": Route(urlset(site.url("/news/both.html"))),
        "/commented.xml": Route(urlset(site.url("/news/commented.html"))),
    }


def well_known(site: SiteServer) -> dict[str, Route]:
    news = NEWS_TITLE.format("Harbour plan", "2024-01-02")
    return {
        "/robots.txt": robots("Sitemap: /listed.xml"),
        "/listed.xml": Route(urlset(site.url("/news/listed.html"))),
        "/sitemap_news.xml": Route(urlset(site.url("/news/wk-news.html"), extra=news)),
        "/sitemap.xml.gz": Route(
            gzipped(urlset(site.url("/news/wk-gz.html"))), "application/x-gzip"
        ),
        "/sitemap-news.xml": Route(urlset(site.url("/news/wk-dash.html"))),
        "/sitemap": Route(site.url("/news/wk-text.html").encode() + b"\n", TEXT),
        "/admin/config/search/xmlsitemap": Route(urlset(site.url("/news/wk-drupal.html"))),
    }


def homepage_feeds(site: SiteServer) -> dict[str, Route]:
    page = (
        b"<html><head><title>Home</title>"
        b'<link rel="alternate" type="application/rss+xml" href="/feed.rss">'
        b'<link rel="alternate" type="application/atom+xml" href="atom.xml">'
        b"</head><body><p>Home</p></body></html>"
    )
    atom = (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>'
        f'<entry><title>Atom one</title><link href="{site.url("/news/atom-1.html")}"/>'
        "<updated>2024-03-04T05:06:07Z</updated></entry></feed>"
    ).encode()
    return {
        "/robots.txt": Route(b"", TEXT, status=404),
        "/": Route(page, "text/html; charset=utf-8"),
        "/feed.rss": Route(
            rss("<title>Feed one</title><link>/news/feed-1.html</link>"), "application/rss+xml"
        ),
        "/atom.xml": Route(atom, "application/atom+xml"),
    }


def formats(site: SiteServer) -> dict[str, Route]:
    children = [
        "/text.txt", "/text.txt.gz", "/rss.xml", "/rss.xml.gz", "/atom03.xml", "/atom10.xml",
        "/ce.xml", "/ce.xml.gz", "/mislabelled-gz.xml", "/mislabelled-xml.gz",
    ]
    atom03 = (
        '<?xml version="1.0"?><feed version="0.3" xmlns="http://purl.org/atom/ns#">'
        "<title>Old</title><entry><title>Atom 0.3</title>"
        f'<link rel="alternate" type="text/html" href="{site.url("/news/atom03.html")}"/>'
        "<issued>2024-01-02T03:04:05Z</issued></entry></feed>"
    ).encode()
    atom10 = (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>New</title>'
        f'<entry><title>Atom 1.0</title><link rel="self" href="{site.url("/self.xml")}"/>'
        f'<link href="{site.url("/news/atom10.html")}"/></entry></feed>'
    ).encode()
    gzip_encoding = (("Content-Encoding", "gzip"),)
    return {
        "/robots.txt": robots("Sitemap: /index.xml"),
        "/index.xml": Route(sitemap_index(*(site.url(c) for c in children))),
        "/text.txt": Route(
            f"{site.url('/news/text-1.html')}\r\n\r\n{site.url('/news/text-2.html')}".encode(),
            TEXT,
        ),
        "/text.txt.gz": Route(
            gzipped(site.url("/news/text-gz.html").encode() + b"\n"), "application/gzip"
        ),
        "/rss.xml": Route(rss("<link>/news/rss.html</link>"), "application/rss+xml"),
        "/rss.xml.gz": Route(
            gzipped(rss("<link>/news/rss-gz.html</link>")), "application/octet-stream"
        ),
        "/atom03.xml": Route(atom03, "application/atom+xml"),
        "/atom10.xml": Route(atom10, "application/atom+xml"),
        "/ce.xml": Route(
            gzipped(urlset(site.url("/news/ce.html"))), "application/xml", gzip_encoding
        ),
        # A .gz file served with Content-Encoding: gzip is gzipped twice on the wire.
        "/ce.xml.gz": Route(
            gzipped(gzipped(urlset(site.url("/news/ce-gz.html")))), "application/x-gzip",
            gzip_encoding,
        ),
        "/mislabelled-gz.xml": Route(
            gzipped(urlset(site.url("/news/mislabelled-gz.html"))), "text/html"
        ),
        "/mislabelled-xml.gz": Route(
            urlset(site.url("/news/mislabelled-xml.html")), "application/x-gzip"
        ),
    }


def truncated(site: SiteServer) -> dict[str, Route]:
    many = urlset(*(site.url(f"/news/gz-{n:03d}.html") for n in range(300)))
    packed = gzipped(many)
    return {
        "/robots.txt": robots("Sitemap: /cut-loc.xml", "Sitemap: /cut-url.xml",
                              "Sitemap: /cut.xml.gz"),
        "/cut-loc.xml": Route(
            urlset(site.url("/news/cut-loc-ok.html"))[: -len("</urlset>")]
            + f"<url><loc>{site.url('/news/cut_')}".encode()
        ),
        "/cut-url.xml": Route(
            urlset(site.url("/news/cut-url-ok.html"))[: -len("</urlset>")]
            + f"<url><loc>{site.url('/news/cut-url-open.html')}</loc>".encode()
        ),
        "/cut.xml.gz": Route(packed[: len(packed) // 2], "application/x-gzip"),
    }


def news_sites(first: str) -> Callable[[SiteServer], dict[str, Route]]:
    def build(site: SiteServer) -> dict[str, Route]:
        story, other = site.url("/news/story.html"), site.url("/news/other.html")
        story_news = NEWS_TITLE.format(
            "<![CDATA[It&#8217;s Q&amp;A]]>", "Tue, 02 Jan 2024 10:20:30 GMT"
        )
        other_news = NEWS_TITLE.format("&lt;b&gt;Bold&lt;/b&gt; move", "2024-01")
        news = urlset(story, extra=story_news).replace(
            b"</urlset>", f"<url><loc>{other}</loc>{other_news}</url></urlset>".encode()
        )
        order = ["/regular.xml", "/news.xml"]
        if first == "news":
            order.reverse()
        # The pages answer slowly: both sitemaps are read before either page arrives.
        slow = {
            path: Route(article_page(path), "text/html; charset=utf-8", delay=1.5)
            for path in ("/news/story.html", "/news/other.html")
        }
        return {
            "/robots.txt": robots(*(f"Sitemap: {path}" for path in order)),
            "/regular.xml": Route(urlset(story, other)),
            "/news.xml": Route(news),
            **slow,
        }

    return build


def bad_urls(site: SiteServer) -> dict[str, Route]:
    long_url = site.url("/news/" + "x" * 3000 + ".html")
    good = [site.url(f"/news/good-{n}.html") for n in range(5)]
    return {
        "/robots.txt": robots(
            "Sitemap: mailto:someone@example.com", "Sitemap: javascript:alert(1)",
            "Sitemap: /index.xml", "Sitemap: /not-a-sitemap.xml",
        ),
        "/index.xml": Route(sitemap_index("mailto:x@example.com", site.url("/child.xml"))),
        "/child.xml": Route(
            urlset("mailto:a@example.com", good[0], "javascript:void(0)", good[1],
                   "http://[::1/broken", good[2], "ftp://example.com/file", good[3], long_url,
                   "http://127.0.0.1:99999/port", good[4])
        ),
        "/not-a-sitemap.xml": Route(b"<html><body>Not here</body></html>", "text/html"),
    }


SITES: dict[str, Callable[[SiteServer], dict[str, Route]]] = {
    "robots_forms": robots_forms,
    "well_known": well_known,
    "homepage_feeds": homepage_feeds,
    "formats": formats,
    "truncated": truncated,
    "news_regular_first": news_sites("regular"),
    "news_news_first": news_sites("news"),
    "bad_urls": bad_urls,
}


class Crawl:
    """The sites and the finished crawl over them."""

    def __init__(self, servers: dict[str, SiteServer], outcome: CrawlOutcome) -> None:
        self.servers = servers
        self.outcome = outcome

    def paths(self, name: str) -> set[str]:
        return set(self.outcome.pages_of(self.servers[name]))

    def explain(self, name: str) -> str:
        return describe(self.outcome, requested=dict(self.servers[name].requested))


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawl]:
    workdir: Path = tmp_path_factory.mktemp("discovery")
    with serve_sites(SITES) as servers:
        sites = ",".join(server.base_url for server in servers.values())
        outcome = run_crawl("sitemap", {"site": sites}, workdir)
        yield Crawl(servers, outcome)


def test_the_crawl_finishes_cleanly(crawl: Crawl) -> None:
    assert crawl.outcome.returncode == 0, crawl.outcome.log[-3000:]
    assert "Traceback" not in crawl.outcome.log, crawl.outcome.log[-5000:]


def test_robots_txt_in_any_form(crawl: Crawl) -> None:
    assert crawl.paths("robots_forms") == {
        "/news/upper.html", "/news/relative.html", "/news/both.html"
    }, crawl.explain("robots_forms")
    site = crawl.servers["robots_forms"]
    assert f"Sitemap {site.url('/sm-upper.xml')} found in {site.url('/robots.txt')}" in (
        crawl.outcome.log
    )


def test_a_sitemap_found_twice_is_read_once(crawl: Crawl) -> None:
    requested = crawl.servers["robots_forms"].requested
    assert requested["/sitemap.xml"] == 1, crawl.explain("robots_forms")
    assert crawl.outcome.stat("newscrawl/sitemap/sitemap_found_again") == 0


def test_well_known_paths_are_probed_even_when_robots_lists_a_sitemap(crawl: Crawl) -> None:
    assert crawl.paths("well_known") == {
        "/news/listed.html", "/news/wk-news.html", "/news/wk-gz.html", "/news/wk-dash.html",
        "/news/wk-text.html", "/news/wk-drupal.html",
    }, crawl.explain("well_known")
    requested = crawl.servers["well_known"].requested
    assert all(requested[path] == 1 for path in WELL_KNOWN_SITEMAP_PATHS), requested
    site = crawl.servers["well_known"]
    assert f"Sitemap {site.url('/sitemap_news.xml')} found at a well-known path" in (
        crawl.outcome.log
    )


def test_news_sitemap_at_a_well_known_path_keeps_its_headline(crawl: Crawl) -> None:
    page = crawl.outcome.pages_of(crawl.servers["well_known"])["/news/wk-news.html"]
    assert page.title == "Harbour plan"
    assert page.published_at == datetime(2024, 1, 2, tzinfo=UTC)


def test_the_homepage_feeds_are_read_as_sitemaps(crawl: Crawl) -> None:
    pages = crawl.outcome.pages_of(crawl.servers["homepage_feeds"])
    assert set(pages) == {"/news/feed-1.html", "/news/atom-1.html"}, crawl.explain(
        "homepage_feeds"
    )
    assert pages["/news/feed-1.html"].title == "Feed one"
    assert pages["/news/atom-1.html"].published_at == datetime(2024, 3, 4, 5, 6, 7, tzinfo=UTC)
    site = crawl.servers["homepage_feeds"]
    assert f"Sitemap {site.url('/feed.rss')} found in {site.base_url}" in crawl.outcome.log


def test_every_sitemap_format_plain_gzipped_and_mislabelled(crawl: Crawl) -> None:
    assert crawl.paths("formats") == {
        "/news/text-1.html", "/news/text-2.html", "/news/text-gz.html", "/news/rss.html",
        "/news/rss-gz.html", "/news/atom03.html", "/news/atom10.html", "/news/ce.html",
        "/news/ce-gz.html", "/news/mislabelled-gz.html", "/news/mislabelled-xml.html",
    }, crawl.explain("formats")
    # A gzipped sitemap labelled text/html is a sitemap, not a "binary" page.
    assert f"Bad response body (binary) at {crawl.servers['formats'].base_url}" not in (
        crawl.outcome.log
    )
    # Two here, one at a well-known path of another site.
    assert crawl.outcome.stat("newscrawl/sitemap/format_text") == 3
    assert crawl.outcome.stat("newscrawl/sitemap/format_atom") >= 3


def test_cut_off_entries_are_dropped_and_counted(crawl: Crawl) -> None:
    paths = crawl.paths("truncated")
    listed = {f"/news/gz-{n:03d}.html" for n in range(300)}
    gzip_pages = {p for p in paths if p.startswith("/news/gz-")}
    assert paths - gzip_pages == {"/news/cut-loc-ok.html", "/news/cut-url-ok.html"}, (
        crawl.explain("truncated")
    )
    # A prefix of the gzipped sitemap survives; no partial URL is ever requested.
    assert 0 < len(gzip_pages) < 300 and gzip_pages <= listed
    requested = crawl.servers["truncated"].requested
    assert not [p for p in requested if p.startswith("/news/") and p not in listed | paths]
    assert crawl.outcome.stat("newscrawl/sitemap/entry_truncated") >= 3


@pytest.mark.parametrize("name", ["news_regular_first", "news_news_first"])
def test_news_data_reaches_the_page_whichever_sitemap_is_read_first(
    crawl: Crawl, name: str
) -> None:
    pages = crawl.outcome.pages_of(crawl.servers[name])
    assert set(pages) == {"/news/story.html", "/news/other.html"}, crawl.explain(name)
    story, other = pages["/news/story.html"], pages["/news/other.html"]
    assert story.title == "It\u2019s Q&A"
    assert story.published_at == datetime(2024, 1, 2, 10, 20, 30, tzinfo=UTC)
    assert other.title == "Bold move"
    assert other.published_at == datetime(2024, 1, 1, tzinfo=UTC)
    # Each page is fetched once, listed in two sitemaps or not.
    assert crawl.servers[name].requested["/news/story.html"] == 1


def test_one_bad_url_loses_only_itself(crawl: Crawl) -> None:
    assert crawl.paths("bad_urls") == {f"/news/good-{n}.html" for n in range(5)}, (
        crawl.explain("bad_urls")
    )
    # 2 in robots.txt, 1 in the index, 6 in the urlset.
    assert crawl.outcome.stat("newscrawl/sitemap/bad_url") == 9
    assert "Skipping unusable URL 'mailto:someone@example.com'" in crawl.outcome.log


def test_a_document_that_is_no_sitemap_is_logged_with_its_url(crawl: Crawl) -> None:
    url = crawl.servers["bad_urls"].url("/not-a-sitemap.xml")
    assert f"Ignoring invalid sitemap: {url}" in crawl.outcome.log
    assert crawl.outcome.stat("newscrawl/sitemap/invalid_sitemap") >= 1
