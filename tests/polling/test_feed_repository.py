"""Feed polling state in the database, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from newscrawl.seen_url_cache import SeenUrlCache
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import PageRecord

FEED = "http://news.example/rss.xml"
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
LEASE = timedelta(minutes=10)


def store_page(engine: Engine, url: str) -> None:
    PageRepository(engine).store_page(
        PageRecord(url=url, site="news.example", category="world", body=b"<p>x</p>",
                   fetched_at=NOW)
    )


def test_registering_twice_keeps_the_state(engine: Engine) -> None:
    feeds = FeedRepository(engine)
    feeds.register_feed(FEED, site="news.example", category="world")
    feeds.record_fetched(
        FEED, polled_at=NOW, next_poll_at=NOW + LEASE, interval_seconds=600.0, status=200,
        etag='"v1"', last_modified="Sun, 22 Nov 2026 11:00:00 GMT", entries=10, new_entries=4,
    )
    feeds.register_feed(FEED, site="news.example", category=None)
    state = feeds.load_feed(FEED)
    assert state is not None
    assert (state.etag, state.last_modified, state.category) == (
        '"v1"', "Sun, 22 Nov 2026 11:00:00 GMT", "world"
    )
    assert (state.entries_seen, state.entries_new, state.polls) == (10, 4, 1)
    assert state.interval_seconds == 600.0


def test_a_due_feed_is_claimed_once(engine: Engine) -> None:
    feeds = FeedRepository(engine)
    feeds.register_feed(FEED, site="news.example", category=None)
    feeds.register_feed("http://news.example/other.xml", site="news.example", category=None)
    assert feeds.claim_due_feeds([FEED], now=NOW, lease=LEASE) == [FEED]
    assert feeds.claim_due_feeds([FEED], now=NOW, lease=LEASE) == []
    assert feeds.claim_due_feeds([FEED], now=NOW + LEASE, lease=LEASE) == [FEED]


def test_not_modified_counts_a_poll_and_keeps_validators(engine: Engine) -> None:
    feeds = FeedRepository(engine)
    feeds.register_feed(FEED, site="news.example", category=None)
    feeds.record_fetched(
        FEED, polled_at=NOW, next_poll_at=NOW, interval_seconds=60.0, status=200,
        etag='"v1"', last_modified=None, entries=3, new_entries=3,
    )
    feeds.record_not_modified(
        FEED, polled_at=NOW, next_poll_at=NOW + LEASE, interval_seconds=90.0
    )
    state = feeds.load_feed(FEED)
    assert state is not None
    assert (state.etag, state.last_status, state.not_modified, state.polls) == ('"v1"', 304, 1, 2)
    assert state.next_poll_at == NOW + LEASE


def test_failures_back_off_then_mark_the_feed_dead(engine: Engine) -> None:
    feeds = FeedRepository(engine)
    feeds.register_feed(FEED, site="news.example", category=None)
    first = feeds.record_failure(
        FEED, polled_at=NOW, error="500 Internal Server Error", status=500, max_failures=3,
        backoff=LEASE,
    )
    assert first is not None and not first.is_dead
    assert first.next_poll_at == NOW + LEASE
    feeds.record_failure(FEED, polled_at=NOW, error="e", status=500, max_failures=3,
                         backoff=LEASE)
    dead = feeds.record_failure(FEED, polled_at=NOW, error="e", status=500, max_failures=3,
                                backoff=LEASE)
    assert dead is not None and dead.is_dead and dead.failure_count == 3
    assert feeds.claim_due_feeds([FEED], now=NOW + 10 * LEASE, lease=LEASE) == []
    assert feeds.count_due_feeds(NOW + 10 * LEASE) == 0


def test_a_success_resets_the_failures(engine: Engine) -> None:
    feeds = FeedRepository(engine)
    feeds.register_feed(FEED, site="news.example", category=None)
    feeds.record_failure(FEED, polled_at=NOW, error="e", status=None, max_failures=3,
                         backoff=LEASE)
    feeds.record_fetched(
        FEED, polled_at=NOW, next_poll_at=NOW, interval_seconds=60.0, status=200,
        etag=None, last_modified=None, entries=0, new_entries=0,
    )
    state = feeds.load_feed(FEED)
    assert state is not None and state.failure_count == 0 and state.last_error is None


def test_due_feeds_are_counted(engine: Engine) -> None:
    feeds = FeedRepository(engine)
    feeds.register_feed(FEED, site="news.example", category=None)
    assert feeds.count_due_feeds(NOW) == 0  # never scheduled
    feeds.record_not_modified(FEED, polled_at=NOW, next_poll_at=NOW, interval_seconds=60.0)
    assert feeds.count_due_feeds(NOW) == 1
    assert feeds.count_due_feeds(NOW - timedelta(seconds=1)) == 0


def test_known_urls_are_fetched_pages(engine: Engine) -> None:
    store_page(engine, "http://news.example/world/a.html")
    urls = [f"http://news.example/world/{name}.html" for name in ("a", "b")] * 600
    assert FeedRepository(engine).find_known_urls(urls) == {"http://news.example/world/a.html"}


def test_seen_url_cache_is_bounded_lru() -> None:
    cache = SeenUrlCache(capacity=2)
    assert cache.split_unknown(["a", "b", "a"]) == ["a", "b"]
    cache.add(["a", "b"])
    assert cache.split_unknown(["a", "c"]) == ["c"]  # "a" is now the most recent
    cache.add(["c"])
    assert len(cache) == 2
    assert "b" not in cache and "a" in cache and "c" in cache
    cache.discard(["a", "x"])
    assert cache.split_unknown(["a", "c"]) == ["a"]
