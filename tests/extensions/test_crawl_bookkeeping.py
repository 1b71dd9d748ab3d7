from __future__ import annotations

from datetime import UTC, datetime

from newscrawl.extensions.crawl_runs import build_json_stats
from newscrawl.extensions.progress_log import format_progress, format_summary


def test_stats_become_json_safe() -> None:
    started = datetime(2026, 11, 22, 8, tzinfo=UTC)
    stats = build_json_stats({"start_time": started, "item_scraped_count": 3, "odd": {1, 2}})
    assert stats == {
        "start_time": "2026-11-22T08:00:00+00:00",
        "item_scraped_count": 3,
        "odd": "{1, 2}",
    }


def test_progress_line_names_the_biggest_pending_groups() -> None:
    stats = {
        "response_received_count": 90,
        "newscrawl/rss/page_fetched": 30,
        "newscrawl/sitemap/page_fetched": 10,
        "newscrawl/sql_storage/articles_stored": 25,
    }
    pending = {f"site|c{n}": n for n in range(1, 8)}
    line = format_progress(stats, pending)
    assert line.startswith(
        "Progress: 40 article pages fetched, 25 articles stored, 28 pages pending in 7"
    )
    assert "site|c7=7, site|c6=6, site|c5=5, site|c4=4, site|c3=3, 2 more groups=3" in line


def test_progress_line_without_pending_pages() -> None:
    line = format_progress({}, {})
    assert line == (
        "Progress: 0 article pages fetched, 0 articles stored, 0 pages pending in 0 groups"
    )


def test_summary_counts_article_pages_and_failed_sources() -> None:
    stats = {
        "response_received_count": 60,
        "newscrawl/rss/page_fetched": 40,
        "newscrawl/sql_storage/articles_stored": 38,
        "newscrawl/rss/feed_parsed": 3,
        "newscrawl/rss/feed_failed": 1,
    }
    assert format_summary(stats, "finished", None) == (
        "Crawl ended (finished): 40 article pages fetched, 38 articles stored;"
        " 3 feeds or sitemaps read, 1 failed (see the warnings above)"
    )
    assert format_summary(
        {"newscrawl/sitemap/sitemap_guess_missing": 3}, "finished", None
    ).endswith("0 feeds or sitemaps read, 3 failed (none could be read)")


def test_interrupted_summary_says_what_the_next_crawl_extracts() -> None:
    line = format_summary({"newscrawl/rss/feed_parsed": 1}, "shutdown", 7)
    assert line.endswith(
        ". Interrupted with 7 fetched pages pending in the database: the next crawl extracts them"
    )
    assert "Interrupted" not in format_summary({}, "finished", 7)
