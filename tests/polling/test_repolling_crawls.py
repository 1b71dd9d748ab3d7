"""Re-polling crawls over loopback: 304s and known articles cost no page fetch; dead feeds."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.database_support import DIALECTS, open_test_database
from tests.e2e.crawl_support import CrawlResult, read_articles, write_feeds_file
from tests.polling.logged_demo import serve_logged_demo
from tests.polling.loopback_feeds import GrowingFeedServer, serve_growing_feed
from tests.polling.polling_crawls import read_feed, run_polling_crawl

MAX_FAILURES = 3


@dataclass(frozen=True)
class PolledSite:
    """A finished re-polling crawl of the growing feed and the broken feed."""

    server: GrowingFeedServer
    result: CrawlResult
    database_url: str


@pytest.fixture(scope="module", params=DIALECTS)
def polled_site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PolledSite]:
    tmp_path = tmp_path_factory.mktemp(f"polling-{request.param}")
    with (
        open_test_database(request.param, tmp_path) as database_url,
        serve_growing_feed() as server,
    ):
        feeds = tmp_path / "feeds.txt"
        feeds.write_text(f"{server.base_url}/feed.xml\tlocal\n{server.base_url}/broken.xml\n")
        result = run_polling_crawl(
            "rss", {"feeds": str(feeds), "every": "1s"}, database_url,
            {"CLOSESPIDER_TIMEOUT": "8", "RETRY_ENABLED": "False",
             "NEWSCRAWL_FEED_MAX_FAILURES": str(MAX_FAILURES)},
        )
        yield PolledSite(server, result, database_url)


def test_the_crawl_keeps_polling_until_stopped(polled_site: PolledSite) -> None:
    assert polled_site.result.returncode == 0, polled_site.result.log[-3000:]
    assert "'finish_reason': 'closespider_timeout'" in polled_site.result.log
    assert polled_site.server.requests["/feed.xml"] >= 3


def test_a_repoll_fetches_only_the_new_articles(polled_site: PolledSite) -> None:
    fetched = polled_site.server.article_requests()
    polls = polled_site.server.requests["/feed.xml"]
    # Every article once; the entries a poll repeats were skipped without a fetch.
    assert set(fetched.values()) == {1}
    assert len(fetched) >= polled_site.server.initial + 1
    assert polled_site.result.stat("newscrawl/rss/known_article_skipped") >= (
        polled_site.server.initial * (polls - 1)
    )
    urls = [article.url for article in read_articles(polled_site.database_url)]
    assert len(urls) == len(set(urls))
    assert urls and {url.split("/", 3)[3] for url in urls} <= {p[1:] for p in fetched}


def test_feed_state_is_recorded(polled_site: PolledSite) -> None:
    state = read_feed(polled_site.database_url, f"{polled_site.server.base_url}/feed.xml")
    assert state is not None
    assert state.polls >= 3 and state.failure_count == 0 and not state.is_dead
    assert state.entries_seen > state.entries_new >= polled_site.server.initial + 1
    # Something new at every poll: the interval stays at its floor, every=1s.
    assert state.interval_seconds == 1.0
    assert state.next_poll_at is not None


def test_a_failing_feed_backs_off_and_is_marked_dead(polled_site: PolledSite) -> None:
    state = read_feed(polled_site.database_url, f"{polled_site.server.base_url}/broken.xml")
    assert state is not None
    assert state.is_dead and state.failure_count == MAX_FAILURES
    assert state.last_status == 500
    # Dead after MAX_FAILURES polls, and never polled again.
    assert polled_site.server.requests["/broken.xml"] == MAX_FAILURES
    assert polled_site.result.stat("newscrawl/rss/feed_dead") == 1


def test_demo_repoll_gets_304s_and_fetches_no_article_twice(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'demo.db'}"
    with serve_logged_demo() as (feed_urls, log):
        feeds = write_feeds_file(feed_urls, tmp_path)
        result = run_polling_crawl(
            "rss", {"feeds": str(feeds), "every": "2s"}, database_url,
            {"CLOSESPIDER_TIMEOUT": "12"},
        )
    assert result.returncode == 0, result.log[-3000:]
    feed_paths = [url.split(":", 2)[2] for url in feed_urls]  # "PORT/rss.xml"
    for path in feed_paths:
        log.check_repolled_with_304(path)
    article_counts = log.article_requests()
    assert article_counts
    assert set(article_counts.values()) == {1}, "a known article page was fetched again"
    urls = [article.url for article in read_articles(database_url)]
    assert len(urls) == len(set(urls)) == len(article_counts)
    # Nothing new (304s): every feed's interval grew beyond every=2s.
    for url in feed_urls:
        state = read_feed(database_url, url)
        assert state is not None and state.not_modified >= 1
        assert state.interval_seconds is not None and state.interval_seconds > 2.0


def test_one_shot_crawl_skips_known_articles_when_told(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'one-shot.db'}"
    with serve_growing_feed(initial=3) as server:
        feeds = tmp_path / "feeds.txt"
        feeds.write_text(f"{server.base_url}/feed.xml\n")
        settings = {"NEWSCRAWL_SKIP_SEEN_URLS": "True"}
        first = run_polling_crawl("rss", {"feeds": str(feeds)}, database_url, settings)
        second = run_polling_crawl("rss", {"feeds": str(feeds)}, database_url, settings)
        fetched = server.article_requests()
    assert first.returncode == second.returncode == 0, second.log[-3000:]
    assert "'finish_reason': 'finished'" in second.log
    # The second feed has one more entry; only that one is fetched.
    assert fetched == {f"/news/story-{n}.html": 1 for n in (1, 2, 3, 4)}
    assert second.stat("newscrawl/rss/known_article_skipped") == 3
    assert len(read_articles(database_url)) == 4


def test_sitemap_repoll_gets_304s_and_fetches_no_article_twice(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'sitemaps.db'}"
    with serve_logged_demo() as (feed_urls, log):
        indexes = [url.replace("/rss.xml", "/sitemap_index.xml") for url in feed_urls[:2]]
        result = run_polling_crawl(
            "sitemap", {"sitemap": ",".join(indexes), "every": "2s"}, database_url,
            {"CLOSESPIDER_TIMEOUT": "10"},
        )
    assert result.returncode == 0, result.log[-3000:]
    assert "'finish_reason': 'closespider_timeout'" in result.log
    for url in indexes:
        log.check_repolled_with_304(url.split(":", 2)[2])
    article_counts = log.article_requests()
    assert article_counts
    assert set(article_counts.values()) == {1}, "a known article page was fetched again"
    assert result.stat("newscrawl/sitemap/sitemap_not_modified") >= 2
