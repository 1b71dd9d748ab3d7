"""RssSpider callbacks, called directly with generated feeds and pages."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import Response

from newscrawl.items import PageItem
from newscrawl.spider_arguments import CrawlArgumentError
from newscrawl.spiders.article_pages import ArticleHint
from newscrawl.spiders.rss import FeedSource, RssSpider, read_feed_sources
from tests.spiders import feed_documents as docs
from tests.spiders.spider_building import (
    HtmlResponse,
    XmlResponse,
    build_response,
    build_spider,
    stats_of,
)


def feed_requests(
    spider: RssSpider, response: Response, source: FeedSource, discovered: bool = False
) -> list[Request]:
    async def collect() -> list[Request]:
        return [r async for r in spider.parse_feed(response, source, discovered)]

    return asyncio.run(collect())


def collect_start(spider: RssSpider) -> list[Request]:
    async def collect() -> list[Request]:
        return [request async for request in spider.start()]

    return asyncio.run(collect())


def test_feed_entries_become_article_requests_with_hints() -> None:
    spider = build_spider(RssSpider, feed="https://www.daily.example/feeds/main.xml")
    url = "https://www.daily.example/feeds/main.xml"
    requests = feed_requests(spider, build_response(url, docs.RSS_20), FeedSource(url))
    assert [r.url for r in requests] == [
        "https://www.daily.example/politics/budget.html",
        "https://www.daily.example/world/2026/11/story.html",
    ]
    hint = requests[0].cb_kwargs["hint"]
    assert hint.title == "Budget passes"
    assert hint.authors == ("Jo Smith", "Ann Lee")
    assert hint.feed_url == url
    assert requests[0].callback == spider.parse_article
    assert requests[0].errback == spider.handle_article_error


def test_category_comes_from_entry_tag_else_feed_else_url() -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    url = "https://www.daily.example/feeds/main.xml"
    tagged, feed_level = feed_requests(spider, build_response(url, docs.RSS_20), FeedSource(url))
    assert tagged.cb_kwargs["hint"].category == "politics"
    assert feed_level.cb_kwargs["hint"].category == "front page"
    plain = "https://plain.example/rss"
    untagged = build_response(plain, docs.RSS_20_UNTAGGED)
    (from_url,) = feed_requests(spider, untagged, FeedSource(plain))
    assert from_url.cb_kwargs["hint"].category == "transport"


def test_category_segment_setting_picks_another_directory() -> None:
    spider = build_spider(
        RssSpider, {"NEWSCRAWL_CATEGORY_SEGMENT": 1}, feed="https://plain.example/rss"
    )
    url = "https://plain.example/rss"
    body = docs.RSS_20_UNTAGGED.replace(b"/transport/2026/", b"/transport/ferries/")
    (request,) = feed_requests(spider, build_response(url, body), FeedSource(url))
    assert request.cb_kwargs["hint"].category == "ferries"


def test_the_users_category_for_a_feed_wins() -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    url = "https://www.daily.example/feeds/main.xml"
    requests = feed_requests(spider, build_response(url, docs.RSS_20), FeedSource(url, "daily"))
    assert {r.cb_kwargs["hint"].category for r in requests} == {"daily"}


def test_entries_without_link_are_counted() -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    url = "https://www.daily.example/feeds/main.xml"
    feed_requests(spider, build_response(url, docs.RSS_20), FeedSource(url))
    feed_requests(spider, build_response("https://atom.example/a", docs.ATOM), FeedSource(url))
    stats = stats_of(spider)
    assert stats["newscrawl/rss/entry_without_link"] == 2
    assert stats["newscrawl/rss/entry"] == 3


@pytest.mark.parametrize("body", [docs.RSS_091, docs.RSS_10, docs.ATOM])
def test_every_feed_flavour_yields_requests(body: bytes) -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    url = "https://feeds.example/feed"
    assert len(feed_requests(spider, build_response(url, body), FeedSource(url))) == 1


def test_html_page_leads_to_its_announced_feeds_once() -> None:
    spider = build_spider(RssSpider, feed="https://www.daily.example/")
    url = "https://www.daily.example/"
    page = build_response(url, docs.HTML_WITH_FEEDS, kind=HtmlResponse)
    requests = feed_requests(spider, page, FeedSource(url, "news"))
    assert [r.url for r in requests] == [
        "https://www.daily.example/rss.xml",
        "https://cdn.example/atom.xml",
    ]
    assert all(r.cb_kwargs["discovered"] for r in requests)
    assert requests[0].cb_kwargs["source"].category == "news"
    # A discovered "feed" that is again HTML is not followed any further.
    again = feed_requests(spider, page, FeedSource(url), discovered=True)
    assert again == []
    assert stats_of(spider)["newscrawl/rss/not_a_feed"] == 1


def test_page_without_feeds_is_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    spider = build_spider(RssSpider, feed="https://x.example/")
    page = build_response("https://x.example/", docs.HTML_WITHOUT_FEEDS, kind=HtmlResponse)
    assert feed_requests(spider, page, FeedSource("https://x.example/")) == []
    assert "No feed found at https://x.example/" in caplog.text
    assert stats_of(spider)["newscrawl/rss/not_a_feed"] == 1


def test_article_response_becomes_a_page_item_with_raw_body() -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    hint = ArticleHint(category="politics", feed_url="https://x.example/f", title="T",
                       authors=("A B",), keywords=("k",))
    body = "<html><body><p>Caf\u00e9</p></body></html>".encode()
    request = Request("https://www.x.example:8443/p.html", cb_kwargs={"hint": hint})
    response = build_response(request.url, body, kind=HtmlResponse, request=request)
    (item,) = list(spider.parse_article(response, hint=hint))
    assert isinstance(item, PageItem)
    assert item.body == body
    assert (item.site, item.category, item.title, item.encoding) == (
        "x.example:8443", "politics", "T", "utf-8"
    )
    assert item.authors == ["A B"] and item.keywords == ["k"]
    assert item.status == 200


def test_start_reads_the_feeds_file(tmp_path: Path) -> None:
    feeds = tmp_path / "feeds.txt"
    feeds.write_text(
        "# my feeds\nhttps://a.example/rss.xml\tWorld News\n\nhttps://b.example/atom.xml\n"
        "https://a.example/rss.xml\nnot a url\n/etc/passwd\n",
        encoding="utf-8",
    )
    assert read_feed_sources(feeds) == [
        FeedSource("https://a.example/rss.xml", "world news"),
        FeedSource("https://b.example/atom.xml", None),
    ]
    spider = build_spider(
        RssSpider, feed="https://c.example/feed", category="Front", feeds=str(feeds)
    )
    requests = collect_start(spider)
    assert requests[0].cb_kwargs["source"] == FeedSource("https://c.example/feed", "front")
    assert [r.url for r in requests] == [
        "https://c.example/feed",
        "https://a.example/rss.xml",
        "https://b.example/atom.xml",
    ]
    assert requests[0].callback == spider.parse_feed


def test_spider_without_feeds_is_a_clear_error() -> None:
    with pytest.raises(CrawlArgumentError, match="feed=URL"):
        build_spider(RssSpider)
    with pytest.raises(CrawlArgumentError, match="expected an http"):
        build_spider(RssSpider, feed="feeds.txt")


def test_xml_response_of_garbage_is_not_a_crash() -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    garbage = build_response("https://x.example/f", b"<rss><channel><item><link>", kind=XmlResponse)
    assert feed_requests(spider, garbage, FeedSource("https://x.example/f")) == []


def test_feeds_are_parsed_in_another_thread() -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")

    async def parse_thread() -> int:
        return await spider.run_parser(threading.get_ident)

    assert asyncio.run(parse_thread()) != threading.get_ident()


def test_a_feed_that_takes_too_long_to_parse_is_logged_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    spider = build_spider(RssSpider, feed="https://x.example/f")
    spider.parse_timeout = 0.0  # no parse finishes within no time at all
    url = "https://www.daily.example/feeds/main.xml"
    assert feed_requests(spider, build_response(url, docs.RSS_20), FeedSource(url)) == []
    assert f"Feed {url} could not be parsed: not parsed within 0 s" in caplog.text
    assert stats_of(spider)["newscrawl/rss/feed_unparsable"] == 1
