"""A crawl killed with SIGKILL midway and restarted loses no fetched page, stores nothing twice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from newscrawl.demo import DemoNetworkServer
from tests.e2e.crawl_support import (
    KILL_AFTER_PAGES,
    crawl_until_killed,
    read_articles,
    read_page_statuses,
    run_crawl,
    write_feeds_file,
)


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


def test_sigkill_midway_then_restart_loses_and_duplicates_nothing(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    database = tmp_path / "crash.db"
    database_url = f"sqlite:///{database}"
    feeds = write_feeds_file(network.feed_lines(), tmp_path)
    crawl_until_killed({"feeds": str(feeds)}, database)
    pages_before = set(read_page_statuses(database_url))
    assert KILL_AFTER_PAGES <= len(pages_before) < 99

    restart = run_crawl("rss", {"feeds": str(feeds)}, database_url)
    assert restart.returncode == 0, restart.log[-3000:]

    urls = [article.url for article in read_articles(database_url)]
    assert len(urls) == len(set(urls)) == 99
    statuses = read_page_statuses(database_url)
    assert pages_before <= set(statuses)
    assert "pending" not in set(statuses.values())
