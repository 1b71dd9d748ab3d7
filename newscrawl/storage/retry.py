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


def is_transient_error(error: BaseException) -> bool:
    """Locked SQLite files and lost PostgreSQL connections; constraint or schema errors are not."""
    if isinstance(error, DBAPIError) and isinstance(error.orig, sqlite3.Error):
        return error.connection_invalidated or _is_transient_sqlite_error(error.orig)
    if isinstance(error, OperationalError):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


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
