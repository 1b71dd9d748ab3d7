"""The database stays down: the crawl stops cleanly and says why, keeps every fetched page
in its local spool, and the next crawl writes what was pending (issue #5, item 6)."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from scrapy.crawler import Crawler
from sqlalchemy import text

from newscrawl.demo import DemoNetworkServer
from newscrawl.exit_codes import ExitCode
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.pipelines.extraction_config import build_extraction_config
from newscrawl.pipelines.neighbour_settings import read_neighbour_settings
from newscrawl.pipelines.page_spooling import DatabaseUnavailableError, is_database_outage
from newscrawl.pipelines.template_learning import TemplateLearner
from newscrawl.storage.migrations import open_database
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.retry import run_in_thread_with_retry
from tests.e2e.crawl_support import (
    POSTGRES_ADMIN_URL,
    build_postgres_url,
    fresh_postgres_database,
    terminate_connections,
    write_feeds_file,
)
from tests.hostile.corpus import Route
from tests.hostile.crawling import (
    assert_every_page_stored,
    dump_outcome,
    finish_crawl,
    read_logged_stats,
    read_outcome,
    start_crawl,
)
from tests.hostile.server import HostileServer
from tests.pipelines.chain import build_test_crawler

CLEAN_STOP = "Database unavailable, stopping the crawl (database_unavailable)"
# Slow enough that the outage lands while pages are being fetched and stored.
OUTAGE_SETTINGS = {
    "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
    "CONCURRENT_REQUESTS": "4",
    "DOWNLOAD_DELAY": "0.05",
}
PAGES_BEFORE_OUTAGE = 8
# The advisory lock migrations/env.py takes around the migrations on PostgreSQL.
MIGRATION_LOCK_ID = 4_711_003
MIGRATIONS_ENV = Path(__file__).resolve().parents[2] / "migrations" / "env.py"


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


def find_free_port() -> int:
    """A loopback port nothing listens on once this returns."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_crawl(process: subprocess.Popen[str], timeout: float = 120) -> str:
    """The combined output of a crawl started by start_crawl."""
    log, _ = process.communicate(timeout=timeout)
    return log


def assert_no_traceback(log: str) -> None:
    assert "Traceback" not in log, log[-6000:]
    assert "Task exception was never retrieved" not in log, log[-6000:]


def assert_stopped_quietly(log: str) -> None:
    """One ERROR line says why and where the pages went; nothing retries once closing."""
    assert log.count(CLEAN_STOP) == 1, log[-6000:]
    assert log.count("] ERROR: ") == 1, log[-6000:]
    assert "written by the next crawl" in log
    after_close = log.split("Closing spider (database_unavailable)", 1)[1]
    assert "Database error (attempt" not in after_close, after_close[-6000:]
    # Each kept page is in the stats and the spool, not on a log line of its own.
    assert "Dropped: " not in log, log[-6000:]


def test_database_down_at_start_stops_cleanly(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    database_url = f"postgresql+psycopg://postgres@127.0.0.1:{find_free_port()}/newscrawl"
    spool = tmp_path / "spool"
    feeds = write_feeds_file(network.feed_lines(), tmp_path)
    process = start_crawl(
        "rss", {"feeds": str(feeds)}, database_url,
        {**OUTAGE_SETTINGS, "NEWSCRAWL_SPOOL_DIR": str(spool)},
    )
    log = wait_for_crawl(process)

    assert process.returncode == ExitCode.DATABASE_UNAVAILABLE, log[-6000:]
    assert_no_traceback(log)
    assert_stopped_quietly(log)
    assert "Connection refused" in log
    assert "Spider closed (database_unavailable)" in log
    # Whatever was fetched before the spider closed is in the spool, not lost.
    fetched = read_logged_stats(log).get("newscrawl/rss/page_fetched", 0)
    spooled = list(spool.glob("*/*.page.json"))
    assert len(spooled) == fetched


def test_read_only_sqlite_file_stops_cleanly(network: DemoNetworkServer, tmp_path: Path) -> None:
    database = tmp_path / "crawl.db"
    open_database(f"sqlite:///{database}").dispose()
    # mode=ro: read-only even for root, who may write to a file without write permission.
    database_url = f"sqlite:///file:{database}?mode=ro&uri=true"
    spool = tmp_path / "spool"
    feeds = write_feeds_file(network.feed_lines(), tmp_path)
    process = start_crawl(
        "rss", {"feeds": str(feeds)}, database_url,
        {**OUTAGE_SETTINGS, "NEWSCRAWL_SPOOL_DIR": str(spool)},
    )
    log = wait_for_crawl(process)

    assert process.returncode == ExitCode.DATABASE_UNAVAILABLE, log[-6000:]
    assert_no_traceback(log)
    assert_stopped_quietly(log)
    assert "Spider closed (database_unavailable)" in log


def render_feed(base: str, paths: list[str]) -> bytes:
    items = "".join(f"<item><title>{p}</title><link>{base}{p}</link></item>" for p in paths)
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>{base}/</link>'
        f"{items}</channel></rss>"
    ).encode()


def is_feed_polled(name: str, url: str) -> bool:
    try:
        with psycopg.connect(build_postgres_url(name), autocommit=True) as connection:
            row = connection.execute(
                "SELECT last_polled_at IS NOT NULL FROM feeds WHERE url = %s", (url,)
            ).fetchone()
    except psycopg.Error:  # not migrated yet
        return False
    return bool(row and row[0])


def test_database_down_while_a_feed_is_parsed_stops_cleanly(tmp_path: Path) -> None:
    with HostileServer() as server, fresh_postgres_database() as database_url:
        base = server.base_url
        server.routes = {
            "/robots.txt": Route(status=404, content_type="text/plain", body=b""),
            "/first.xml": Route(content_type="application/rss+xml", body=render_feed(base, [])),
            # Answers once the database is down: its entries are checked against the database.
            "/second.xml": Route(
                content_type="application/rss+xml", stall=4.0,
                body=render_feed(base, ["/news/a.html", "/news/b.html"]),
            ),
        }
        name = database_url.rsplit("/", 1)[1]
        feeds = write_feeds_file([f"{base}/first.xml", f"{base}/second.xml"], tmp_path)
        settings = {
            **OUTAGE_SETTINGS, "NEWSCRAWL_SPOOL_DIR": str(tmp_path / "spool"),
            "DOWNLOAD_TIMEOUT": "20",
        }
        process = start_crawl("rss", {"feeds": str(feeds)}, database_url, settings)
        try:
            deadline = time.monotonic() + 60
            while not is_feed_polled(name, f"{base}/first.xml"):
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            set_connections_allowed(name, allowed=False)
            log = wait_for_crawl(process)
        finally:
            set_connections_allowed(name, allowed=True)

    assert process.returncode == ExitCode.DATABASE_UNAVAILABLE, log[-6000:]
    assert_no_traceback(log)
    assert "Spider error processing" not in log, log[-6000:]
    assert_stopped_quietly(log)


def set_connections_allowed(name: str, allowed: bool) -> int:
    """Open or close a database to new connections; closing also kills the open ones."""
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if allowed:
            return 0
        return terminate_connections(admin, name)


def count_stored_pages(name: str) -> int:
    crawl_database = build_postgres_url(name)
    try:
        with psycopg.connect(crawl_database, autocommit=True) as connection:
            exists = connection.execute("SELECT to_regclass('pages') IS NOT NULL").fetchone()
            if not (exists and exists[0]):
                return 0
            row = connection.execute("SELECT count(*) FROM pages").fetchone()
    except psycopg.OperationalError:
        return 0
    return int(row[0]) if row else 0


def test_database_down_mid_crawl_then_restart_writes_every_page(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    spool = tmp_path / "spool"
    settings = {**OUTAGE_SETTINGS, "NEWSCRAWL_SPOOL_DIR": str(spool)}
    with fresh_postgres_database() as database_url:
        name = database_url.rsplit("/", 1)[1]
        feeds = write_feeds_file(network.feed_lines(), tmp_path)
        process = start_crawl("rss", {"feeds": str(feeds)}, database_url, settings)
        killed: list[int] = []

        def take_database_down() -> None:
            while process.poll() is None:
                if count_stored_pages(name) >= PAGES_BEFORE_OUTAGE:
                    killed.append(set_connections_allowed(name, allowed=False))
                    return
                time.sleep(0.05)

        injector = threading.Thread(target=take_database_down, daemon=True)
        injector.start()
        try:
            first_log = wait_for_crawl(process)
        finally:
            injector.join(timeout=30)
            set_connections_allowed(name, allowed=True)
        first = read_outcome(process.returncode, first_log, database_url)

        assert killed and killed[0] > 0, first_log[-6000:]
        assert first.returncode == ExitCode.DATABASE_UNAVAILABLE, first_log[-6000:]
        assert "Task exception was never retrieved" not in first_log
        assert_stopped_quietly(first_log)
        assert "Spider closed (database_unavailable)" in first_log
        fetched = first.stat("newscrawl/rss/page_fetched")
        spooled = first.stat("newscrawl/spool/spooled")
        assert spooled > 0, first_log[-6000:]
        assert len(list(spool.glob("*/*.page.json"))) == spooled
        # Not finished yet: some pages never reached the database.
        assert len(first.pages) < fetched, dump_outcome(first)

        # The restart reads a feed that is gone, so every page it stores comes from the
        # spool or from the pages the first crawl left pending.
        base = next(iter(network.base_urls.values()))
        restart = start_crawl(
            "rss", {"feed": f"{base.rstrip('/')}/no-such-feed.xml"}, database_url, settings
        )
        second = finish_crawl(restart, database_url)

    # Its only feed is gone: the pages it wrote came from the spool, and the exit says so.
    assert second.returncode == ExitCode.SOURCES_UNREACHABLE, second.log[-6000:]
    assert_no_traceback(second.log)
    assert f"Replayed {spooled} spooled page(s)" in second.log
    assert second.stat("newscrawl/spool/replayed") == spooled
    assert second.stat("newscrawl/rss/page_fetched") == 0
    assert list(spool.glob("*/*.page.json")) == []
    assert_every_page_stored(second, fetched)


def test_connections_killed_while_migrations_run_are_retried(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    assert f"MIGRATION_LOCK_ID = {MIGRATION_LOCK_ID:_}" in MIGRATIONS_ENV.read_text()
    with fresh_postgres_database() as database_url:
        name = database_url.rsplit("/", 1)[1]
        crawl_database = build_postgres_url(name)
        killed = 0
        with psycopg.connect(crawl_database, autocommit=True) as holder:
            # Holding the migration lock parks every migrating connection inside its
            # migration transaction, where the kill is sure to land.
            holder.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_ID,))
            feeds = write_feeds_file(network.feed_lines(), tmp_path)
            process = start_crawl(
                "rss", {"feeds": str(feeds)}, database_url,
                {**OUTAGE_SETTINGS, "NEWSCRAWL_SPOOL_DIR": str(tmp_path / "spool")},
            )
            deadline = time.monotonic() + 60
            while not killed and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.05)
                rows = holder.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()"
                    " AND wait_event_type = 'Lock' AND query LIKE '%%pg_advisory_xact_lock%%'",
                    (name,),
                ).fetchall()
                killed = sum(1 for (ok,) in rows if ok)
            holder.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_ID,))
        outcome = finish_crawl(process, database_url)

    assert killed > 0, outcome.log[-6000:]
    assert outcome.returncode == ExitCode.FINISHED, outcome.log[-6000:]
    assert_no_traceback(outcome.log)
    assert "terminating connection due to administrator command" in outcome.log
    assert "Spider closed (finished)" in outcome.log
    assert_every_page_stored(outcome, outcome.stat("newscrawl/rss/page_fetched"))


@contextmanager
def crawl_store_on_fresh_database(tmp_path: Path) -> Iterator[tuple[str, Crawler, CrawlStore]]:
    """A crawl's store (not yet open) on a fresh PostgreSQL database, with that database's name."""
    with fresh_postgres_database() as database_url:
        crawler = build_test_crawler(database_url, NEWSCRAWL_SPOOL_DIR=str(tmp_path))
        yield database_url.rsplit("/", 1)[1], crawler, CrawlStore.from_crawler(crawler)


def test_no_database_call_retries_once_the_crawl_stops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Retries nobody guarded (feed state, templates, claims) end at once, silently."""
    with crawl_store_on_fresh_database(tmp_path) as (name, _crawler, store):

        async def call_after_stop() -> None:
            engine = await store.open()
            # Held like the claims connection: killed by the outage, used after the stop.
            held = engine.connect()
            held.execute(text("SELECT 1"))
            try:
                set_connections_allowed(name, allowed=False)
                store.spooler.stop_crawl(RuntimeError("connection refused"))
                with pytest.raises(DatabaseUnavailableError):
                    await run_in_thread_with_retry(PageRepository(engine).list_pending_groups)
                with pytest.raises(DatabaseUnavailableError):
                    await run_in_thread_with_retry(held.execute, text("SELECT 1"))
            finally:
                held.close()
                set_connections_allowed(name, allowed=True)
                await store.close()

        with caplog.at_level(logging.WARNING):
            asyncio.run(call_after_stop())

    assert "Database error (attempt" not in caplog.text
    assert [r.levelname for r in caplog.records] == ["ERROR"], caplog.text


def test_template_learning_leaves_an_outage_to_the_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An outage is no template error: raised for the crawl to stop on, not logged at ERROR."""
    with crawl_store_on_fresh_database(tmp_path) as (name, crawler, store):
        assert crawler.stats is not None
        stats = crawler.stats

        async def learn_while_down() -> None:
            engine = await store.open()
            learner = TemplateLearner(
                PageRepository(engine),
                read_neighbour_settings(crawler.settings),
                build_extraction_config(crawler.settings),
                stats,
            )
            try:
                set_connections_allowed(name, allowed=False)
                with pytest.raises(Exception) as raised:
                    await learner.learn_template("example.org\nnews", replaces=None)
                assert is_database_outage(raised.value)
            finally:
                set_connections_allowed(name, allowed=True)
                await store.close()

        with caplog.at_level(logging.WARNING):
            asyncio.run(learn_while_down())

    assert "ERROR" not in [r.levelname for r in caplog.records], caplog.text
