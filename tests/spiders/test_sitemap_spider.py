"""SitemapSpider callbacks, called directly with generated sitemaps and robots.txt."""

from __future__ import annotations

import asyncio
import gzip
from datetime import UTC, datetime

import pytest
from scrapy import Request
from scrapy.http import Response
from scrapy.http import Response as PlainResponse
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from newscrawl.sitemap_discovery import WELL_KNOWN_SITEMAP_PATHS
from newscrawl.spiders.sitemap import SitemapSpider
from tests.spiders import feed_documents as docs
from tests.spiders.spider_building import (
    TextResponse,
    build_response,
    build_spider,
    stats_of,
)


def sitemap_requests(spider: SitemapSpider, response: Response) -> list[Request]:
    async def collect() -> list[Request]:
        return [r async for r in spider.parse_sitemap(response)]

    return asyncio.run(collect())


def robots_requests(spider: SitemapSpider, response: Response, site: str) -> list[Request]:
    async def collect() -> list[Request]:
        return [r async for r in spider.parse_robots(response, site)]

    return asyncio.run(collect())


def probe_urls(site: str) -> list[str]:
    """The well-known sitemap paths of a site, then its homepage."""
    return [f"{site.rstrip('/')}{p}" for p in WELL_KNOWN_SITEMAP_PATHS] + [site]


def test_index_recurses_into_every_child_sitemap() -> None:
    spider = build_spider(SitemapSpider, sitemap="https://site.example/sitemap_index.xml")
    response = build_response("https://site.example/sitemap_index.xml", docs.SITEMAP_INDEX)
    requests = sitemap_requests(spider, response)
    assert [r.url for r in requests] == [
        "https://site.example/sitemaps/2026-09.xml.gz",
        "https://site.example/sitemaps/2026-11.xml.gz",
        "https://site.example/news-sitemap.xml",
    ]
    assert all(r.callback == spider.parse_sitemap for r in requests)


def test_since_skips_old_child_sitemaps_and_old_urls() -> None:
    spider = build_spider(SitemapSpider, sitemap="https://s.example/x.xml", since="2026-11-01")
    index = build_response("https://site.example/sitemap_index.xml", docs.SITEMAP_INDEX)
    assert [r.url for r in sitemap_requests(spider, index)] == [
        "https://site.example/sitemaps/2026-11.xml.gz",
        "https://site.example/news-sitemap.xml",
    ]
    urlset = build_response("https://site.example/s.xml", docs.URLSET)
    assert [r.url for r in sitemap_requests(spider, urlset)] == [
        "https://site.example/world/new.html",
        "https://site.example/tag/world",
        "https://site.example/sport/match.html",
    ]
    stats = stats_of(spider)
    assert stats["newscrawl/sitemap/sitemap_too_old"] == 1
    assert stats["newscrawl/sitemap/url_too_old"] == 1


def test_allow_and_deny_filter_article_urls() -> None:
    spider = build_spider(
        SitemapSpider, sitemap="https://s.example/x.xml", allow=r"\.html$", deny="/sport/"
    )
    urlset = build_response("https://site.example/s.xml", docs.URLSET)
    assert [r.url for r in sitemap_requests(spider, urlset)] == [
        "https://site.example/world/old.html",
        "https://site.example/world/new.html",
    ]
    assert stats_of(spider)["newscrawl/sitemap/url_filtered"] == 2


def test_gzip_sitemap_served_as_a_file_is_read() -> None:
    spider = build_spider(SitemapSpider, sitemap="https://s.example/x.xml")
    response = build_response(
        "https://site.example/sitemaps/2026-11.xml.gz",
        docs.gzip_bytes(docs.URLSET),
        kind=PlainResponse,
        headers={"Content-Type": "application/gzip"},
    )
    assert len(sitemap_requests(spider, response)) == 4


def test_gzip_bomb_is_ignored_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    spider = build_spider(
        SitemapSpider, {"NEWSCRAWL_SITEMAP_MAX_SIZE": 64 * 1024}, sitemap="https://s.example/x"
    )
    bomb = gzip.compress(b"<urlset>" + b" " * (1024 * 1024))
    response = build_response("https://s.example/big.xml.gz", bomb, kind=PlainResponse)
    assert sitemap_requests(spider, response) == []
    assert stats_of(spider)["newscrawl/sitemap/invalid_sitemap"] == 1
    assert "Ignoring invalid sitemap https://s.example/big.xml.gz" in caplog.text


def test_news_sitemap_fields_reach_the_article_hint() -> None:
    spider = build_spider(SitemapSpider, sitemap="https://s.example/x.xml")
    response = build_response("https://site.example/news-sitemap.xml", docs.NEWS_SITEMAP)
    (request,) = sitemap_requests(spider, response)
    hint = request.cb_kwargs["hint"]
    assert hint.title == "Merger agreed"
    assert hint.published == datetime(2026, 11, 15, 7, 45, tzinfo=UTC)
    assert hint.keywords == ("merger", "banks", "finance")
    assert hint.category == "business"
    assert hint.feed_url == "https://site.example/news-sitemap.xml"


def test_html_instead_of_a_sitemap_is_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    spider = build_spider(SitemapSpider, sitemap="https://s.example/x.xml")
    page = build_response("https://s.example/x.xml", b"<html><body>Oops</body></html>")
    assert sitemap_requests(spider, page) == []
    assert "Ignoring invalid sitemap: https://s.example/x.xml" in caplog.text
    assert stats_of(spider)["newscrawl/sitemap/invalid_sitemap"] == 1


def test_site_discovery_starts_with_robots_txt() -> None:
    spider = build_spider(SitemapSpider, site="https://site.example/")

    async def collect() -> list[Request]:
        return [r async for r in spider.start()]

    (request,) = asyncio.run(collect())
    assert request.url == "https://site.example/robots.txt"
    robots = build_response(request.url, docs.ROBOTS, kind=TextResponse, request=request)
    follow = robots_requests(spider, robots, site="https://site.example/")
    # The sitemaps robots.txt names, then the well-known paths it does not, then the homepage.
    listed = ["https://site.example/sitemap_index.xml", "https://site.example/news-sitemap.xml"]
    assert [r.url for r in follow] == listed + [
        u for u in probe_urls("https://site.example/") if u not in listed
    ]


def test_robots_without_sitemaps_falls_back_to_well_known_paths() -> None:
    spider = build_spider(SitemapSpider, site="https://site.example/")
    robots = build_response(
        "https://site.example/robots.txt", b"User-agent: *\nDisallow:\n", kind=TextResponse
    )
    follow = robots_requests(spider, robots, site="https://site.example/")
    assert [r.url for r in follow] == probe_urls("https://site.example/")


def test_missing_robots_falls_back_to_well_known_paths() -> None:
    spider = build_spider(SitemapSpider, site="https://site.example/")
    request = Request(
        "https://site.example/robots.txt", cb_kwargs={"site": "https://site.example/"}
    )
    not_found = build_response(request.url, b"", kind=TextResponse, request=request)
    failure = Failure(HttpError(not_found, "Ignoring non-200 response"))
    failure.request = request  # type: ignore[attr-defined]
    follow = list(spider.handle_robots_error(failure))
    assert [r.url for r in follow] == probe_urls("https://site.example/")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({}, "sitemap=URL"), ({"sitemap": "https://x.example/s.xml", "since": "soon"}, "since")],
)
def test_bad_arguments_are_clear_errors(arguments: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_spider(SitemapSpider, None, **arguments)


def test_a_sitemap_that_takes_too_long_to_parse_is_logged_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    spider = build_spider(SitemapSpider, sitemap="https://s.example/x.xml")
    spider.parse_timeout = 0.0  # no parse finishes within no time at all
    response = build_response("https://site.example/s.xml", docs.URLSET)
    assert sitemap_requests(spider, response) == []
    assert "Ignoring invalid sitemap https://site.example/s.xml: not parsed within 0 s" in (
        caplog.text
    )
    assert stats_of(spider)["newscrawl/sitemap/invalid_sitemap"] == 1


def test_news_data_of_a_later_sitemap_reaches_a_page_requested_from_an_earlier_one() -> None:
    spider = build_spider(SitemapSpider, sitemap="https://s.example/x.xml")
    regular = build_response(
        "https://site.example/plain.xml",
        b"<urlset><url><loc>https://site.example/business/merger.html</loc></url></urlset>",
    )
    (request,) = sitemap_requests(spider, regular)
    assert request.cb_kwargs["hint"].title is None
    # The news sitemap's own request for the same URL is the one the dupefilter drops.
    sitemap_requests(spider, build_response("https://site.example/news.xml", docs.NEWS_SITEMAP))
    page = build_response(request.url, b"<html></html>", kind=PlainResponse, request=request)
    (item,) = list(spider.parse_article(page, **request.cb_kwargs))
    assert item.title == "Merger agreed"
    assert item.published == datetime(2026, 11, 15, 7, 45, tzinfo=UTC)
    assert stats_of(spider)["newscrawl/sitemap/news_merged"] == 1
