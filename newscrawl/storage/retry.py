"""Retry a whole database unit of work when the connection, not the data, was the problem."""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

logger = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")

DEFAULT_ATTEMPTS = 5
DEFAULT_BASE_DELAY = 0.2
MAX_DELAY = 5.0
# SQLite primary result codes of a file that is busy or cannot be reached right now; other
# SQLite OperationalErrors ("no such table", syntax) are bugs that no retry will fix.
SQLITE_TRANSIENT_CODES = frozenset(
    {
        5,  # SQLITE_BUSY: "database is locked"
        6,  # SQLITE_LOCKED: "database table is locked"
        10,  # SQLITE_IOERR: "disk I/O error"
        14,  # SQLITE_CANTOPEN: "unable to open database file"
    }
)
SQLITE_TRANSIENT_MESSAGES = ("locked", "busy", "unable to open", "disk i/o error")
# PostgreSQL SQLSTATE classes of a server that is away, busy or out of resources: 08
# connection exception, 40 transaction rollback (deadlock, serialization), 53 insufficient
# resources, 57 operator intervention (shutdown, terminated), 58 system error. Class 54
# (program limit, e.g. an oversized tsvector) is an OperationalError in psycopg but a
# property of the data: retrying it only stops the crawl.
POSTGRES_TRANSIENT_CLASSES = frozenset({"08", "40", "53", "57", "58"})
POSTGRES_TRANSIENT_STATES = frozenset(
    {
        "55P03",  # lock_not_available
        "55006",  # object_in_use
    }
)
# 57014 query_canceled: a statement timeout on one write is that write's problem.
POSTGRES_DATA_STATES = frozenset({"57014"})


def is_transient_error(error: BaseException) -> bool:
    """An outage: locked or unopenable SQLite files, PostgreSQL connections lost or refused,
    servers shutting down. Data errors (too long, invalid text, constraints, program limits,
    schema errors) are not: they belong to one write and no retry fixes them."""
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    if isinstance(error.orig, sqlite3.Error):
        return _is_transient_sqlite_error(error.orig)
    if not isinstance(error, OperationalError):
        return False
    state = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    if not state:
        # Raised by the client library itself: refused, reset or closed connections.
        return True
    if state in POSTGRES_DATA_STATES:
        return False
    return state in POSTGRES_TRANSIENT_STATES or state[:2] in POSTGRES_TRANSIENT_CLASSES


def _is_transient_sqlite_error(error: sqlite3.Error) -> bool:
    if not isinstance(error, sqlite3.OperationalError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        # Extended codes (e.g. SQLITE_BUSY_SNAPSHOT) keep the primary code in the low byte.
        return (code & 0xFF) in SQLITE_TRANSIENT_CODES
    message = str(error).lower()
    return any(part in message for part in SQLITE_TRANSIENT_MESSAGES)


def call_with_retry(
    unit_of_work: Callable[[], T],
    *,
    attempts: int = DEFAULT_ATTEMPTS,
    base_delay: float = DEFAULT_BASE_DELAY,
) -> T:
    """Run `unit_of_work` (one whole transaction), retrying transient errors with backoff.

    Safe because every repository call is its own transaction made of idempotent upserts.
    Blocks while it waits: call it from a worker thread.
    """
    for attempt in range(1, attempts + 1):
        try:
            return unit_of_work()
        except DBAPIError as error:
            if attempt == attempts or not is_transient_error(error):
                raise
            delay = min(MAX_DELAY, base_delay * 2 ** (attempt - 1))
            logger.warning(
                "Database error (attempt %d of %d), retrying in %.1fs: %s",
                attempt,
                attempts,
                delay,
                # One line: psycopg adds hints on lines of their own.
                " ".join(str(error.orig).split()),
            )
            time.sleep(delay)
    raise AssertionError("unreachable")


async def run_in_thread_with_retry(
    function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs
) -> T:
    """Run a blocking repository call in a worker thread, off the event loop, with retries."""
    return await asyncio.to_thread(call_with_retry, functools.partial(function, *args, **kwargs))
