"""`scrapy crawl rss -a feeds=FILE` over a loopback site, one feed per case (issues 17, 21).

One crawl reads every feed of the feeds file; each test checks the pages stored from its
feed (their paths name the case) and what the crawl logged and counted.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.spiders.loopback_sites import (
    CrawlOutcome,
    Route,
    SiteServer,
    describe,
    rss,
    run_crawl,
    serve_sites,
)

HTML = "text/html; charset=utf-8"
RSS = "application/rss+xml"


def json_feed(version: str, items: list[dict[str, object]]) -> bytes:
    return json.dumps(
        {"version": f"https://jsonfeed.org/version/{version}", "title": "Loopback",
         "items": items}
    ).encode()


def page_announcing(link: str) -> bytes:
    return f"<html><head>{link}</head><body><p>Section</p></body></html>".encode()


def build_routes(site: SiteServer) -> dict[str, Route]:
    utf16 = (
        '<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>W</title>'
        "<item><title>Wide \u00e9t\u00e9</title><link>/news/utf16-1.html</link></item>"
        "<item><title>Wide 2</title><link>/news/utf16-2.html</link></item></channel></rss>"
    )
    return {
        "/json10.json": Route(
            json_feed("1", [
                {"id": "1", "url": site.url("/news/json10-1.html"), "title": "JSON one",
                 "date_published": "2024-02-03T04:05:06Z", "author": {"name": "Ann Lee"}},
                {"id": "2", "external_url": site.url("/news/json10-2.html"),
                 "content_text": "no title"},
            ]),
            "application/json",
        ),
        "/json11.json": Route(
            json_feed("1.1", [
                {"id": "a", "url": "/news/json11-1.html", "title": "It&#8217;s JSON",
                 "authors": [{"name": "Bo Chan"}, {"name": "bo@example.com"}],
                 "tags": ["Politics"]},
                {"id": "b", "url": "mailto:x@example.com", "title": "Bad link"},
            ]),
            "application/feed+json",
        ),
        "/page-text-xml.html": Route(
            page_announcing('<link rel="alternate" type="text/xml" href="/text-xml.xml">'), HTML
        ),
        "/text-xml.xml": Route(rss("<link>/news/text-xml.html</link>"), "text/xml"),
        "/page-json.html": Route(
            page_announcing(
                '<link rel="alternate" type="application/feed+json" href="/announced.json">'
            ),
            HTML,
        ),
        "/announced.json": Route(
            json_feed("1.1", [{"id": "1", "url": site.url("/news/announced-json.html")}]),
            "application/feed+json",
        ),
        "/page-anchor.html": Route(
            b"<html><body><a href='/about.html'>About</a>"
            b"<a href='/feed/'>Subscribe (RSS)</a></body></html>",
            HTML,
        ),
        "/feed/": Route(rss("<link>/news/anchor.html</link>"), RSS),
        "/titles.xml": Route(
            rss(
                "<title>It&amp;#8217;s Q&amp;amp;A</title><link>/news/title-escaped.html</link>",
                "<title><![CDATA[It&#8217;s <b>Q&amp;A</b>]]></title>"
                "<link>/news/title-cdata.html</link>",
            ),
            RSS,
        ),
        "/authors.xml": Route(
            rss(
                "<link>/news/author-email.html</link><author>jane@example.com</author>",
                "<link>/news/author-named.html</link>"
                "<author>jane@example.com (Jane Doe)</author>",
                "<link>/news/author-dc.html</link><dc:creator>bob@example.com</dc:creator>",
            ),
            RSS,
        ),
        "/utf16.xml": Route(codecs.BOM_UTF16_LE + utf16.encode("utf-16-le"), RSS),
        "/long-author.xml": Route(
            rss(
                "<link>/news/long-author.html</link><author>"
                + "a" * (1024 * 1024) + "@example.com</author>",
                "<link>/news/short-author.html</link><author>Kim Park</author>",
            ),
            RSS,
        ),
        "/surrogate.xml": Route(
            rss(
                "<title>One</title><link>/news/surrogate-1.html</link>",
                "<title>Broken &#xD800; emoji</title><link>/news/surrogate-2.html</link>",
                "<title>Three &#55357;</title><link>/news/surrogate-3.html</link>",
                "<title>Four</title><link>/news/surrogate-4.html</link>",
            ),
            RSS,
        ),
        "/bad-links.xml": Route(
            rss(
                "<link>/news/bad-links-1.html</link>",
                "<link>mailto:someone@example.com</link>",
                "<link>javascript:alert(1)</link>",
                "<link>/news/bad-links-2.html</link>",
                f"<link>/news/{'x' * 3000}.html</link>",
                "<link>http://[::1/broken</link>",
                "<link>/news/bad-links-3.html</link>",
            ),
            RSS,
        ),
        "/broken.xml": Route(b"\x00\x01\x02 no feed at all", "application/rss+xml"),
    }


FEEDS = [
    "/json10.json", "/json11.json", "/page-text-xml.html", "/page-json.html",
    "/page-anchor.html", "/titles.xml", "/authors.xml", "/utf16.xml", "/long-author.xml",
    "/surrogate.xml", "/bad-links.xml", "/broken.xml",
]


class Crawl:
    """The site and the finished crawl of its feeds."""

    def __init__(self, site: SiteServer, outcome: CrawlOutcome) -> None:
        self.site = site
        self.outcome = outcome
        self.pages = outcome.pages_of(site)

    def paths(self, prefix: str) -> set[str]:
        return {path for path in self.pages if path.startswith(prefix)}

    def explain(self) -> str:
        return describe(self.outcome, requested=dict(self.site.requested))


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawl]:
    workdir: Path = tmp_path_factory.mktemp("feeds")
    with serve_sites({"feeds": build_routes}) as servers:
        site = servers["feeds"]
        feeds = workdir / "feeds.txt"
        feeds.write_text("".join(site.url(path) + "\n" for path in FEEDS), "utf-8")
        yield Crawl(site, run_crawl("rss", {"feeds": str(feeds)}, workdir))


def test_the_crawl_finishes_cleanly(crawl: Crawl) -> None:
    assert crawl.outcome.returncode == 0, crawl.outcome.log[-3000:]
    assert "Traceback" not in crawl.outcome.log, crawl.outcome.log[-5000:]


def test_json_feed_1_0(crawl: Crawl) -> None:
    assert crawl.paths("/news/json10-") == {"/news/json10-1.html", "/news/json10-2.html"}, (
        crawl.explain()
    )
    first = crawl.pages["/news/json10-1.html"]
    assert first.title == "JSON one"
    assert first.published_at == datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC)
    assert first.authors == ("Ann Lee",)


def test_json_feed_1_1(crawl: Crawl) -> None:
    assert crawl.paths("/news/json11-") == {"/news/json11-1.html"}, crawl.explain()
    page = crawl.pages["/news/json11-1.html"]
    assert page.title == "It\u2019s JSON"
    assert page.authors == ("Bo Chan",)


@pytest.mark.parametrize(
    "path", ["/news/text-xml.html", "/news/announced-json.html", "/news/anchor.html"]
)
def test_feeds_announced_in_every_way_are_found(crawl: Crawl, path: str) -> None:
    assert path in crawl.pages, crawl.explain()


def test_a_page_is_searched_for_anchors_only_when_it_announces_nothing(crawl: Crawl) -> None:
    assert crawl.site.requested["/about.html"] == 0
    assert crawl.site.requested["/feed/"] == 1


def test_titles_are_plain_text(crawl: Crawl) -> None:
    assert crawl.pages["/news/title-escaped.html"].title == "It\u2019s Q&A", crawl.explain()
    assert crawl.pages["/news/title-cdata.html"].title == "It\u2019s Q&A"


def test_an_email_only_author_is_no_name(crawl: Crawl) -> None:
    assert crawl.pages["/news/author-email.html"].authors == (), crawl.explain()
    assert crawl.pages["/news/author-dc.html"].authors == ()
    assert crawl.pages["/news/author-named.html"].authors == ("Jane Doe",)


def test_utf16_feed_is_read_and_not_called_binary(crawl: Crawl) -> None:
    assert crawl.paths("/news/utf16-") == {"/news/utf16-1.html", "/news/utf16-2.html"}, (
        crawl.explain()
    )
    assert crawl.pages["/news/utf16-1.html"].title == "Wide \u00e9t\u00e9"
    assert f"Bad response body (binary) at {crawl.site.url('/utf16.xml')}" not in (
        crawl.outcome.log
    )


def test_a_megabyte_author_is_left_out_and_freezes_nothing(crawl: Crawl) -> None:
    assert {"/news/long-author.html", "/news/short-author.html"} <= set(crawl.pages), (
        crawl.explain()
    )
    assert crawl.pages["/news/long-author.html"].authors == ()
    assert crawl.pages["/news/short-author.html"].authors == ("Kim Park",)
    assert crawl.outcome.stat("newscrawl/rss/author_field_capped") == 1


def test_a_surrogate_reference_loses_no_entry(crawl: Crawl) -> None:
    assert crawl.paths("/news/surrogate-") == {
        f"/news/surrogate-{n}.html" for n in range(1, 5)
    }, crawl.explain()
    assert crawl.pages["/news/surrogate-2.html"].title == "Broken \ufffd emoji"


def test_one_bad_entry_link_loses_only_itself(crawl: Crawl) -> None:
    assert crawl.paths("/news/bad-links-") == {
        f"/news/bad-links-{n}.html" for n in range(1, 4)
    }, crawl.explain()
    # feedparser drops the mailto:, javascript: and unparsable links: entries without a link
    # (with the JSON Feed's mailto: item). The URL check catches the one too long.
    assert crawl.outcome.stat("newscrawl/rss/entry_without_link") == 4
    assert crawl.outcome.stat("newscrawl/rss/bad_url") == 1


def test_a_document_that_is_no_feed_is_logged_with_its_url(crawl: Crawl) -> None:
    assert f"No feed found at {crawl.site.url('/broken.xml')}" in crawl.outcome.log
    assert crawl.outcome.stat("newscrawl/rss/not_a_feed") == 1
