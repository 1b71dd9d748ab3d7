"""Database faults mid-crawl: killed PostgreSQL connections and a SQLite file locked by
another writer. The crawl must retry, keep every item, and end with nothing pending."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from newscrawl.demo import DemoNetworkServer
from tests.e2e.crawl_support import (
    build_postgres_url,
    fresh_postgres_database,
    terminate_connections,
    write_feeds_file,
)
from tests.hostile.crawling import (
    CrawlOutcome,
    assert_every_page_stored,
    finish_crawl,
    start_crawl,
)

KILL_WINDOW_SECONDS = 2.5
# Slow enough that the faults land while pages are being stored.
FAULT_SETTINGS = {
    "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
    "CONCURRENT_REQUESTS": "4",
    "DOWNLOAD_DELAY": "0.01",
}


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


def crawl_under_fault(
    network: DemoNetworkServer, database_url: str, tmp_path: Path, inject: Callable[[], int]
) -> tuple[CrawlOutcome, int]:
    """Crawl the demo feeds while `inject` runs in a loop; return the outcome and fault count."""
    feeds = write_feeds_file(network.feed_lines(), tmp_path)
    process = start_crawl("rss", {"feeds": str(feeds)}, database_url, FAULT_SETTINGS)
    faults = 0
    stop = threading.Event()

    def keep_injecting() -> None:
        nonlocal faults
        while not stop.is_set():
            faults += inject()

    injector = threading.Thread(target=keep_injecting, daemon=True)
    injector.start()
    try:
        # The injector stops as soon as the crawl ends; the outcome is read after it stopped.
        while process.poll() is None:
            time.sleep(0.1)
    finally:
        stop.set()
        injector.join(timeout=30)
    return finish_crawl(process, database_url), faults


def assert_nothing_lost(outcome: CrawlOutcome) -> None:
    assert outcome.returncode == 0, outcome.log[-4000:]
    assert "Traceback" not in outcome.log, outcome.log[-4000:]
    fetched = outcome.stat("newscrawl/rss/page_fetched")
    assert fetched > 0
    assert_every_page_stored(outcome, fetched)


def test_postgres_connections_killed_mid_crawl(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    with fresh_postgres_database() as database_url:
        name = database_url.rsplit("/", 1)[1]

        crawl_database = build_postgres_url(name)
        window: list[float] = []

        def terminate_backends() -> int:
            time.sleep(0.2)
            # Kill for a few seconds only, so that crawl_runs gets its final row (that
            # bookkeeping write is not retried; see the report of issue #5).
            if window and time.monotonic() - window[0] > KILL_WINDOW_SECONDS:
                return 0
            with psycopg.connect(crawl_database, autocommit=True) as admin:
                # Mid-crawl: once migrations are done and pages are being stored.
                started = admin.execute("SELECT to_regclass('pages') IS NOT NULL").fetchone()
                if not (started and started[0]):
                    return 0
                if not admin.execute("SELECT 1 FROM pages LIMIT 1").fetchone():
                    return 0
                window[:] = window or [time.monotonic()]
                return terminate_connections(admin, name)

        outcome, killed = crawl_under_fault(network, database_url, tmp_path, terminate_backends)
    assert killed > 0
    assert "Database error (attempt 1 of" in outcome.log  # the writes did fail, and retried
    assert_nothing_lost(outcome)


def test_sqlite_locked_by_another_writer_mid_crawl(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    database = tmp_path / "locked.db"

    def hold_write_lock() -> int:
        time.sleep(0.2)
        if not database.exists():
            return 0
        blocker = sqlite3.connect(database, isolation_level=None, timeout=10)
        try:
            blocker.execute("BEGIN IMMEDIATE")
            time.sleep(0.5)
            blocker.execute("ROLLBACK")
        except sqlite3.OperationalError:
            return 0  # the crawl held the lock for longer than our timeout: try again
        finally:
            blocker.close()
        return 1

    outcome, locks = crawl_under_fault(
        network, f"sqlite:///{database}", tmp_path, hold_write_lock
    )
    assert locks > 0
    assert_nothing_lost(outcome)
