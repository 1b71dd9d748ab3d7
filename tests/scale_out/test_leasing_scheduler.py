"""LeasingRedisScheduler on the real Redis: one worker at a time schedules a dont_filter URL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from newscrawl.leasing_scheduler import LeasingRedisScheduler
from tests.scale_out.worker_support import REDIS_URL


class LeaseSpider(Spider):
    name = "lease"


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    prefix = f"newscrawl-test:{uuid.uuid4().hex[:12]}"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}:*"))
    if keys:
        client.delete(*keys)
    client.close()


def open_worker(prefix: str) -> LeasingRedisScheduler:
    settings = {
        "REDIS_URL": REDIS_URL,
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_QUEUE_KEY": f"{prefix}:%(spider)s:requests",
        "SCHEDULER_DUPEFILTER_KEY": f"{prefix}:%(spider)s:dupefilter",
        "SCHEDULER_PERSIST": True,
        "NEWSCRAWL_FRONTIER_LEASE": 600,
    }
    crawler = get_crawler(LeaseSpider, settings_dict=settings)
    spider = LeaseSpider.from_crawler(crawler)
    scheduler = LeasingRedisScheduler.from_crawler(crawler)
    scheduler.open(spider)
    return scheduler


def test_a_dont_filter_url_is_scheduled_by_one_worker_only(redis_prefix: str) -> None:
    first, second = open_worker(redis_prefix), open_worker(redis_prefix)
    try:
        article = "http://127.0.0.1:8000/world/story-1.html"
        assert first.enqueue_request(Request(article, dont_filter=True))
        assert not second.enqueue_request(Request(article, dont_filter=True))
        # The worker holding the lease may schedule it again (a retry, a redirect).
        assert first.enqueue_request(Request(article, dont_filter=True))
    finally:
        first.server.close()
        second.server.close()


def test_a_retry_of_a_leased_request_is_scheduled_by_any_worker(redis_prefix: str) -> None:
    first, second = open_worker(redis_prefix), open_worker(redis_prefix)
    try:
        article = "http://127.0.0.1:8000/world/story-2.html"
        assert first.enqueue_request(Request(article, dont_filter=True))
        # The other worker takes it from the shared queue, and its download fails: the
        # retry (a copy, meta included) goes back through the other worker's scheduler.
        taken = second.next_request()
        assert taken is not None and taken.url == article
        assert second.enqueue_request(taken.copy())
        # A new request for the same URL (another poll) still respects the lease.
        assert not second.enqueue_request(Request(article, dont_filter=True))
    finally:
        first.server.close()
        second.server.close()


def test_polled_feeds_are_not_leased(redis_prefix: str) -> None:
    first, second = open_worker(redis_prefix), open_worker(redis_prefix)
    try:
        feed = "http://127.0.0.1:8000/world/rss.xml"
        meta = {"handle_httpstatus_list": [304]}
        assert first.enqueue_request(Request(feed, dont_filter=True, meta=meta))
        assert second.enqueue_request(Request(feed, dont_filter=True, meta=meta))
    finally:
        first.server.close()
        second.server.close()
