"""Open the article store for the commands that only read it (status, export).

They never create, migrate or lock it: a SQLite file that does not exist is an error, not a
new empty database, and an existing one is opened read-only.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import URL, Engine, create_engine
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from newscrawl.storage.engine import (
    DEFAULT_DATABASE_URL,
    create_database_engine,
    normalize_database_url,
)
from newscrawl.storage.migrations import read_current_revision, read_head_revision

URL_EXAMPLES = "sqlite:///newscrawl.db or postgresql://user@host/dbname"
DATABASE_URL_HELP = (
    f"SQLAlchemy URL (default: $NEWSCRAWL_DATABASE_URL, else {DEFAULT_DATABASE_URL})"
)


class StoreUnavailable(Exception):
    """The store cannot be read; the message is one line for the user.

    exit_status: 2 when the user named no usable store (bad URL, no such file, old schema),
    1 when it exists but cannot be reached.
    """

    def __init__(self, message: str, exit_status: int = 2) -> None:
        super().__init__(message)
        self.exit_status = exit_status


def resolve_database_url(option: str | None) -> str:
    """The --database-url option, else NEWSCRAWL_DATABASE_URL, else the default."""
    return option or os.environ.get("NEWSCRAWL_DATABASE_URL") or DEFAULT_DATABASE_URL


def open_read_only_store(url: str) -> Engine:
    """An engine on an existing, migrated store; StoreUnavailable says why there is none."""
    try:
        parsed = normalize_database_url(url)
        if parsed.get_backend_name() == "sqlite":
            engine = _open_sqlite_read_only(parsed)
        else:
            engine = create_database_engine(parsed)
    except (ArgumentError, NoSuchModuleError, ValueError) as exc:
        raise StoreUnavailable(
            f"bad database URL {url!r}: {_first_line(exc)} (expected e.g. {URL_EXAMPLES})"
        ) from None
    try:
        current, head = read_current_revision(engine), read_head_revision()
    except SQLAlchemyError as exc:
        engine.dispose()
        where = parsed.render_as_string(hide_password=True)
        raise StoreUnavailable(f"cannot read {where}: {_first_line(exc)}", 1) from None
    if current != head:
        engine.dispose()
        raise StoreUnavailable(
            f"the database is at revision {current or 'none'}, not {head}:"
            " run `newscrawl db upgrade` (or a crawl) first"
        )
    return engine


def _open_sqlite_read_only(url: URL) -> Engine:
    database = url.database
    if not database or database == ":memory:":
        raise StoreUnavailable(f"{url} has no database file to read")
    path = Path(database).resolve()
    if not path.is_file():
        raise StoreUnavailable(
            f"no database at {path}: crawl into it, or run `newscrawl db upgrade`, first"
        )
    # mode=ro: SQLite itself refuses every write, including journal or WAL switches.
    return create_engine(
        URL.create("sqlite", database=f"file:{path}", query={"mode": "ro", "uri": "true"})
    )


def _first_line(error: BaseException) -> str:
    """An exception's message without SQLAlchemy's statement and background lines."""
    original = getattr(error, "orig", None)
    message = str(original if original is not None else error).strip()
    return message.splitlines()[0] if message else type(error).__name__
