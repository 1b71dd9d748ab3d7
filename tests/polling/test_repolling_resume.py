"""A re-polling crawl killed with SIGKILL and restarted ends with every article, once."""

from __future__ import annotations

from pathlib import Path

from newscrawl.demo import DemoNetworkServer
from tests.e2e.crawl_support import (
    KILL_AFTER_PAGES,
    crawl_until_killed,
    read_articles,
    read_page_statuses,
    write_feeds_file,
)
from tests.polling.polling_crawls import run_polling_crawl

DEMO_ARTICLES = 99


def test_sigkilled_polling_crawl_resumes_on_restart(tmp_path: Path) -> None:
    database = tmp_path / "polling-crash.db"
    database_url = f"sqlite:///{database}"
    with DemoNetworkServer() as network:
        feeds = write_feeds_file(network.feed_lines(), tmp_path)
        crawl_until_killed({"feeds": str(feeds), "every": "2s"}, database)
        pages_before = set(read_page_statuses(database_url))
        assert KILL_AFTER_PAGES <= len(pages_before) < DEMO_ARTICLES

        restart = run_polling_crawl(
            "rss", {"feeds": str(feeds), "every": "2s"}, database_url,
            {"CLOSESPIDER_TIMEOUT": "20"},
        )
    assert restart.returncode == 0, restart.log[-3000:]
    urls = [article.url for article in read_articles(database_url)]
    assert len(urls) == len(set(urls)) == DEMO_ARTICLES
    statuses = read_page_statuses(database_url)
    assert pages_before <= set(statuses)
    assert "pending" not in set(statuses.values())
    # Pages stored before the kill were not fetched again after the restart.
    assert restart.stat("newscrawl/rss/page_fetched") == DEMO_ARTICLES - len(pages_before)
