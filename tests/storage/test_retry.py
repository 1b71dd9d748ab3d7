from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import upgrade_database
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.retry import call_with_retry
from tests.storage.test_repositories import make_page


def test_write_waits_for_another_writer_to_let_go(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{tmp_path / 'locked.db'}"
    engine = create_database_engine(url)
    upgrade_database(engine)
    # Another process-like writer holds the write lock for a while.
    engine.dispose()
    # Another writer (think: a second process) holds the write lock for half a second.
    blocker = sqlite3.connect(
        tmp_path / "locked.db", isolation_level=None, check_same_thread=False
    )
    blocker.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, blocker.rollback)
    impatient = create_database_engine(url, sqlite_busy_timeout_ms=50)
    release.start()
    try:
        admission = call_with_retry(
            lambda: PageRepository(impatient).admit_page(make_page(1), count_limit=10),
            attempts=8,
            base_delay=0.1,
        )
    finally:
        release.join()
        blocker.close()
        impatient.dispose()
    assert admission.pending_in_group == 1
    assert "database is locked" in caplog.text  # it did fail first, then retried


def test_data_errors_are_not_retried() -> None:
    calls = []

    def fail() -> None:
        calls.append(1)
        raise IntegrityError("INSERT", {}, Exception("duplicate"))

    with pytest.raises(IntegrityError):
        call_with_retry(fail, attempts=3, base_delay=0)
    assert calls == [1]
