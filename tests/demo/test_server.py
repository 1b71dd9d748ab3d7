"""The demo network over real HTTP on 127.0.0.1: feeds, sitemaps, robots, conditional GET."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from newscrawl.demo import DemoNetworkServer
from newscrawl.feeds import parse_feed
from newscrawl.sitemap_discovery import sitemap_urls_from_robots
from newscrawl.sitemaps import decompress_gzip, parse_sitemap


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_each_site_has_its_own_port(network: DemoNetworkServer) -> None:
    urls = list(network.base_urls.values())
    assert len(set(urls)) == len(network.sites) == 3
    assert all(url.startswith("http://127.0.0.1:") for url in urls)


def test_feeds_list_every_article_with_absolute_links(network: DemoNetworkServer) -> None:
    for site in network.sites:
        base = network.base_urls[site.key]
        for path in ("/rss.xml", "/atom.xml"):
            status, _, body = fetch(base + path)
            assert status == 200
            parsed = parse_feed(body, base + path)
            assert {e.link for e in parsed.entries} == {base + a.path for a in site.articles}


def test_robots_index_gzip_and_news_sitemaps_cover_every_article(
    network: DemoNetworkServer,
) -> None:
    for site in network.sites:
        base = network.base_urls[site.key]
        _, _, robots = fetch(base + "/robots.txt")
        (index_url,) = sitemap_urls_from_robots(robots, base + "/robots.txt")
        _, _, index_body = fetch(index_url)
        index = parse_sitemap(index_body, index_url)
        assert index.kind == "sitemapindex"
        locs: set[str] = set()
        for child in index.entries:
            status, headers, body = fetch(child.loc, {"Accept-Encoding": "gzip"})
            assert status == 200
            if headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            elif child.loc.endswith(".gz"):
                body = decompress_gzip(body)
            locs |= {e.loc for e in parse_sitemap(body).entries}
        assert locs == {base + a.path for a in site.articles}


def test_news_sitemap_has_titles(network: DemoNetworkServer) -> None:
    site = network.sites[0]
    _, _, body = fetch(network.base_urls[site.key] + "/news-sitemap.xml")
    entries = parse_sitemap(body).entries
    assert [e.news_title for e in entries] == [a.title for a in site.articles[: len(entries)]]


def test_conditional_get_answers_304(network: DemoNetworkServer) -> None:
    url = network.base_urls["ledger"] + "/rss.xml"
    _, headers, _ = fetch(url)
    status, _, body = fetch(url, {"If-None-Match": headers["ETag"]})
    assert (status, body) == (304, b"")
    status, _, _ = fetch(url, {"If-Modified-Since": headers["Last-Modified"]})
    assert status == 304


def test_gold_text_is_found_by_url_and_unknown_paths_are_404(network: DemoNetworkServer) -> None:
    site = network.sites[2]
    article = site.articles[3]
    url = network.base_urls[site.key] + article.path
    assert network.gold_text(url) == article.gold_text
    status, _, page = fetch(url)
    assert status == 200 and article.title.encode() in page
    assert fetch(network.base_urls[site.key] + "/nope.html")[0] == 404
    assert network.gold_text("http://127.0.0.1:1/world/x.html") is None
