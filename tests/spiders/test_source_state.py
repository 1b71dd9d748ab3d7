"""A failed bookkeeping write after a fetched feed is logged and counted, not raised."""

from __future__ import annotations

import asyncio

import pytest
from scrapy.utils.test import get_crawler

from newscrawl.spiders.rss import RssSpider

FEED = "http://example.com/rss.xml"


def test_a_failed_state_write_is_logged_counted_and_stops_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crawler = get_crawler(RssSpider, settings_dict={})
    spider = RssSpider.from_crawler(crawler, feed=FEED)
    done: list[str] = []

    async def fail() -> None:
        raise OSError("database is down")

    async def record() -> None:
        done.append("recorded")

    asyncio.run(spider.save_source_state(FEED, record, fail, record))

    assert done == ["recorded"]
    assert crawler.stats is not None
    assert crawler.stats.get_value("newscrawl/rss/feed_state_not_saved") == 1
    assert f"State of feed {FEED} not saved: database is down" in caplog.text


def test_successful_writes_all_run_and_count_nothing() -> None:
    crawler = get_crawler(RssSpider, settings_dict={})
    spider = RssSpider.from_crawler(crawler, feed=FEED)
    done: list[str] = []

    async def record() -> None:
        done.append("recorded")

    asyncio.run(spider.save_source_state(FEED, record, record))

    assert done == ["recorded", "recorded"]
    assert crawler.stats is not None
    assert crawler.stats.get_value("newscrawl/rss/feed_state_not_saved") is None
