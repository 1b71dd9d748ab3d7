from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import upgrade_database
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.retry import call_with_retry, is_transient_error
from tests.database_support import POSTGRES_URL
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
    blocker = sqlite3.connect(tmp_path / "locked.db", isolation_level=None, check_same_thread=False)
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


def raise_from_sqlite(url: str, statement: str) -> DBAPIError:
    """The SQLAlchemy error a real SQLite connection raises for `statement`."""
    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(statement)
    except DBAPIError as error:
        return error
    finally:
        engine.dispose()
    raise AssertionError(f"{statement!r} did not fail")


def test_sqlite_schema_errors_are_not_transient(tmp_path: Path) -> None:
    error = raise_from_sqlite(f"sqlite:///{tmp_path / 'news.db'}", "SELECT * FROM no_such_table")
    assert isinstance(error, OperationalError)
    assert "no such table" in str(error)
    assert not is_transient_error(error)


def test_sqlite_unopenable_and_locked_files_are_transient(tmp_path: Path) -> None:
    unopenable = raise_from_sqlite(f"sqlite:///{tmp_path / 'missing' / 'news.db'}", "SELECT 1")
    assert "unable to open database file" in str(unopenable)
    assert is_transient_error(unopenable)

    path = tmp_path / "locked.db"
    blocker = sqlite3.connect(path, isolation_level=None)
    # Already WAL, as the engine would make it: the busy file must fail the INSERT, not the
    # engine's switch to WAL on connect.
    blocker.execute("PRAGMA journal_mode = WAL")
    blocker.execute("CREATE TABLE t (x)")
    blocker.execute("BEGIN IMMEDIATE")
    try:
        engine = create_database_engine(f"sqlite:///{path}", sqlite_busy_timeout_ms=10)
        try:
            with pytest.raises(OperationalError) as locked, engine.begin() as connection:
                connection.exec_driver_sql("INSERT INTO t VALUES (1)")
        finally:
            engine.dispose()
    finally:
        blocker.close()
    assert "database is locked" in str(locked.value)
    assert is_transient_error(locked.value)


def test_schema_errors_are_not_retried(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'news.db'}"
    calls: list[int] = []

    def query_missing_table() -> None:
        calls.append(1)
        raise raise_from_sqlite(url, "SELECT * FROM pages")

    with pytest.raises(OperationalError):
        call_with_retry(query_missing_table, attempts=3, base_delay=0)
    assert calls == [1]


def raise_from_postgres(statement: str, url: str = POSTGRES_URL) -> DBAPIError:
    """The SQLAlchemy error a real PostgreSQL connection raises for `statement`."""
    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(statement)
    except DBAPIError as error:
        return error
    finally:
        engine.dispose()
    raise AssertionError(f"{statement!r} did not fail")


# 170,000 distinct words: over PostgreSQL's 1 MB tsvector limit (issue 21, finding 1).
OVERSIZED_TSVECTOR = (
    "SELECT to_tsvector('simple', string_agg('w' || md5(n::text), ' '))"
    " FROM generate_series(1, 170000) AS n"
)


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (OVERSIZED_TSVECTOR, "too long for tsvector"),
        ("SELECT * FROM no_such_table", "does not exist"),
        ("SELECT 'a' || chr(0)", "null character not permitted"),
        ("CREATE TEMP TABLE t (v varchar(2)); INSERT INTO t VALUES ('abc')", "too long"),
        ("SELECT convert_from('\\xff'::bytea, 'UTF8')", "invalid byte sequence"),
        ("CREATE TEMP TABLE u (v int UNIQUE); INSERT INTO u VALUES (1), (1)", "duplicate key"),
    ],
)
def test_postgres_data_and_schema_errors_are_not_transient(statement: str, message: str) -> None:
    error = raise_from_postgres(statement)
    assert message in str(error)
    assert not is_transient_error(error)


def test_postgres_program_limit_is_an_operational_error_but_not_retried() -> None:
    error = raise_from_postgres(OVERSIZED_TSVECTOR)
    # psycopg files class 54 under OperationalError, which used to read as an outage.
    assert isinstance(error, OperationalError)
    calls: list[int] = []

    def fail() -> None:
        calls.append(1)
        raise error

    with pytest.raises(OperationalError):
        call_with_retry(fail, attempts=3, base_delay=0)
    assert calls == [1]


def test_postgres_outages_are_transient() -> None:
    refused = raise_from_postgres("SELECT 1", "postgresql+psycopg://postgres@127.0.0.1:1/test")
    assert "refused" in str(refused).lower() or "connect" in str(refused).lower()
    assert is_transient_error(refused)

    engine = create_database_engine(POSTGRES_URL)
    admin = create_database_engine(POSTGRES_URL)
    try:
        with engine.connect() as victim:
            pid = victim.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            with admin.begin() as connection:
                connection.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
            with pytest.raises(DBAPIError) as terminated:
                victim.exec_driver_sql("SELECT 1")
    finally:
        engine.dispose()
        admin.dispose()
    assert is_transient_error(terminated.value)
