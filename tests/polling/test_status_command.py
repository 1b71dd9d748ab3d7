"""`newscrawl status` on a small real database, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from newscrawl.cli import main
from newscrawl.storage.article_repository import ArticleRepository
from newscrawl.storage.crawl_run_repository import CrawlRunRepository
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import ArticleRecord, PageRecord

LIVE = "http://ledger.example/world/rss.xml"
DEAD = "http://gone.example/feed.xml"


def fill_database(engine: Engine) -> None:
    # Taken now, not at import: a long suite reaches this test after the feed would be due.
    now = datetime.now(UTC).replace(microsecond=0)
    feeds = FeedRepository(engine)
    feeds.register_feed(LIVE, site="ledger.example", category="world")
    feeds.record_fetched(
        LIVE, polled_at=now, next_poll_at=now + timedelta(minutes=15), interval_seconds=900.0,
        status=200, etag='"a"', last_modified=None, entries=20, new_entries=5,
    )
    feeds.register_feed(DEAD, site="gone.example", category=None)
    for _ in range(2):
        feeds.record_failure(
            DEAD, polled_at=now, error="HTTP 500", status=500, max_failures=2,
            backoff=timedelta(minutes=1),
        )
    pages = PageRepository(engine)
    for name in ("a", "b", "c"):
        pages.store_page(PageRecord(
            url=f"http://ledger.example/world/{name}.html", site="ledger.example",
            category="world", body=b"<p>pending</p>", fetched_at=now,
        ))
    ArticleRepository(engine).save_article(
        ArticleRecord(
            url="http://ledger.example/world/x.html", title="X", text="Some words here.",
            html="<p>Some words here.</p>", site="ledger.example", category="world",
            fetched_at=now, extracted_at=now, extraction_method="single",
            config_version="default-1",
        ),
        page_id=None,
        page=PageRecord(url="http://ledger.example/world/x.html", site="ledger.example",
                        category="world", body=b"<p>x</p>", fetched_at=now),
    )
    runs = CrawlRunRepository(engine)
    run_id = runs.start_run(spider="rss", worker="host:1", started_at=now)
    runs.finish_run(
        run_id, finished_at=now, reason="finished",
        stats={"response_received_count": 42, "newscrawl/sql_storage/articles_stored": 7},
    )


def test_status_prints_feeds_pending_articles_and_runs(
    engine: Engine, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    fill_database(engine)
    assert main(["status", "--database-url", database_url]) == 0
    out = capsys.readouterr().out
    assert "Feeds (2, 0 due, 1 dead)" in out
    live_line = next(line for line in out.splitlines() if LIVE in line)
    assert " ok " in live_line and "15.0m" in live_line and "5/20" in live_line
    dead_line = next(line for line in out.splitlines() if DEAD in line)
    assert "DEAD" in dead_line and "HTTP 500" in dead_line
    assert "Pending groups (3 pages)" in out
    assert "ledger.example|world  3" in out
    assert "Articles (1)" in out
    run_line = next(line for line in out.splitlines() if "host:1" in line)
    assert "finished" in run_line and "42" in run_line and " 7" in run_line


def test_status_of_an_unmigrated_database_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    assert main(["status", "--database-url", url]) == 2
    assert "newscrawl db upgrade" in capsys.readouterr().err
