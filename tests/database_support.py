"""Real test databases: a SQLite file, or a throw-away schema on the local PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine

from newscrawl.storage.engine import create_database_engine

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DIALECTS = ("sqlite", "postgresql")


@contextmanager
def open_test_database(dialect: str, tmp_path: Path) -> Iterator[str]:
    """Yield the URL of an empty database, removed afterwards.

    On PostgreSQL each test gets its own schema (through search_path), because other
    test sessions share the `test` database.
    """
    if dialect == "sqlite":
        yield f"sqlite:///{tmp_path / 'newscrawl-test.db'}"
        return
    schema = f"newscrawl_test_{uuid.uuid4().hex[:12]}"
    admin = create_database_engine(POSTGRES_URL)
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


@contextmanager
def open_test_engine(dialect: str, tmp_path: Path) -> Iterator[Engine]:
    """Yield an engine on an empty test database."""
    with open_test_database(dialect, tmp_path) as url:
        engine = create_database_engine(url)
        try:
            yield engine
        finally:
            engine.dispose()
