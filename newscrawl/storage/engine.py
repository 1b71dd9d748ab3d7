"""Create SQLAlchemy engines for the article store (SQLite or PostgreSQL through psycopg 3)."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, ExceptionContext, make_url

from newscrawl.settings import DEFAULT_DATABASE_URL

__all__ = ["DEFAULT_DATABASE_URL", "create_database_engine", "normalize_database_url"]
SQLITE_BUSY_TIMEOUT_MS = 30_000
WAL_SWITCH_ATTEMPTS = 20


def normalize_database_url(url: str | URL) -> URL:
    """Return the URL with PostgreSQL routed through psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def create_database_engine(
    url: str | URL = DEFAULT_DATABASE_URL,
    *,
    sqlite_busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS,
    **kwargs: Any,
) -> Engine:
    """Create an engine; SQLite gets WAL, a busy timeout and write-locking transactions."""
    parsed = normalize_database_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(parsed, **kwargs)
        _configure_sqlite(engine, sqlite_busy_timeout_ms)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    engine = create_engine(parsed, **kwargs)
    event.listen(engine, "handle_error", _replace_connection_failing_the_ping)
    return engine


def _replace_connection_failing_the_ping(context: ExceptionContext) -> None:
    """Treat any DBAPI error of the pool's pre-ping as a lost connection: the pool opens a new one.

    A backend killed while a statement was in flight leaves psycopg's connection mid-command
    (transaction status ACTIVE): SQLAlchemy's ping then fails switching autocommit with a
    ProgrammingError that hides the disconnect, and the checkout raised instead of reconnecting.
    """
    if context.is_pre_ping:
        context.is_disconnect = True


def _enable_wal(cursor: sqlite3.Cursor) -> None:
    """Switch the file to WAL (a persistent, once-per-file change)."""
    if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
        return
    # Changing the mode ignores busy_timeout, so a connection racing another one retries.
    for attempt in range(WAL_SWITCH_ATTEMPTS):
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError:
            if attempt == WAL_SWITCH_ATTEMPTS - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # pysqlite's own implicit BEGIN would defer locking to the first write, so that two
        # writers can deadlock on the lock upgrade; we issue BEGIN IMMEDIATE ourselves.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if engine.url.database not in (None, "", ":memory:"):
            _enable_wal(cursor)
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
