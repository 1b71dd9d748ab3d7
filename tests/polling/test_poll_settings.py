"""Spiders read their polling settings once, and refuse what they cannot do."""

from __future__ import annotations

import pytest

from newscrawl.spider_arguments import CrawlArgumentError
from newscrawl.spiders.rss import RssSpider
from newscrawl.spiders.sitemap import SitemapSpider
from tests.spiders.spider_building import build_spider

FEED = "http://news.example/rss.xml"
DATABASE = {"NEWSCRAWL_DATABASE_URL": "sqlite:///unused.db"}


def test_every_argument_sets_the_base_interval() -> None:
    spider = build_spider(RssSpider, DATABASE, feed=FEED, every="15m")
    assert spider.poll_settings is not None
    assert spider.poll_settings.every == 900.0
    assert spider.poll_settings.skip_seen_urls


def test_poll_interval_setting_works_like_every() -> None:
    settings = {**DATABASE, "NEWSCRAWL_POLL_INTERVAL": "1h", "NEWSCRAWL_FEED_MAX_FAILURES": 4}
    spider = build_spider(SitemapSpider, settings, sitemap="http://news.example/sitemap.xml")
    assert spider.poll_settings is not None
    assert (spider.poll_settings.every, spider.poll_settings.max_failures) == (3600.0, 4)


def test_without_every_feeds_are_crawled_once() -> None:
    spider = build_spider(RssSpider, DATABASE, feed=FEED)
    assert spider.poll_settings is not None
    assert spider.poll_settings.every is None
    assert not spider.poll_settings.skip_seen_urls


def test_a_bad_interval_is_a_clear_error() -> None:
    with pytest.raises(CrawlArgumentError, match="-a every=15 minutes: expected a positive"):
        build_spider(RssSpider, DATABASE, feed=FEED, every="15 minutes")


def test_polling_without_a_database_names_the_setting() -> None:
    with pytest.raises(CrawlArgumentError, match="NEWSCRAWL_DATABASE_URL"):
        build_spider(RssSpider, {}, feed=FEED, every="15m")
