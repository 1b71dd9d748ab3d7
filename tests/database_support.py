"""Real test databases: a SQLite file, or a throw-away schema on the local PostgreSQL."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from sqlalchemy import Engine, MetaData, text

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import VERSION_TABLE, upgrade_database

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DIALECTS = ("sqlite", "postgresql")


def _schema_url(schema: str) -> str:
    """The test database's URL with `schema` first on the search path."""
    return f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"


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
        yield _schema_url(schema)
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


class MigratedDatabases:
    """One migrated database per dialect for the whole session, handed out empty to each test.

    Migrating took most of a storage test's time. SQLite: the migrated file is copied for each
    test (a copy is as fresh as a new migration, and the test owns its file). PostgreSQL: one
    schema, whose tables are emptied (and sequences restarted) before each test. A test that
    changes the schema itself must use an empty database of its own instead.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._sqlite_file: Path | None = None
        self._schema: str | None = None
        self._admin: Engine | None = None
        self._tables: list[str] = []
        self._sequences: list[str] = []

    def empty_url(self, dialect: str, tmp_path: Path) -> str:
        """The URL of a migrated database holding no rows."""
        if dialect == "sqlite":
            target = tmp_path / "newscrawl-test.db"
            shutil.copyfile(self._migrated_sqlite_file(), target)
            return f"sqlite:///{target}"
        schema = self._migrated_schema()
        assert self._admin is not None
        with self._admin.begin() as connection:
            # A connection a previous test left inside a transaction would block the deletes
            # for ever: fail that test's successor loudly instead.
            connection.exec_driver_sql("SET LOCAL lock_timeout = '30s'")
            # DELETE, not TRUNCATE: on a few rows it takes 10 ms where TRUNCATE, which
            # replaces every table's and index's files, takes 120 ms.
            for table in self._tables:
                connection.exec_driver_sql(f'DELETE FROM "{schema}"."{table}"')
            for sequence in self._sequences:
                connection.exec_driver_sql(f'ALTER SEQUENCE "{schema}"."{sequence}" RESTART')
        return _schema_url(schema)

    def close(self) -> None:
        """Drop the PostgreSQL schema (the SQLite file goes with the session's tmp folder)."""
        if self._admin is None:
            return
        with self._admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{self._schema}" CASCADE')
        self._admin.dispose()
        self._admin = None

    def _migrated_sqlite_file(self) -> Path:
        if self._sqlite_file is None:
            path = self.folder / "migrated.db"
            engine = create_database_engine(f"sqlite:///{path}")
            try:
                upgrade_database(engine)
            finally:
                engine.dispose()
            # The copy takes the main file only: move everything out of the WAL first.
            with closing(sqlite3.connect(path)) as connection:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._sqlite_file = path
        return self._sqlite_file

    def _migrated_schema(self) -> str:
        if self._schema is None:
            schema = f"newscrawl_test_{uuid.uuid4().hex[:12]}"
            self._admin = create_database_engine(POSTGRES_URL)
            with self._admin.begin() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            self._schema = schema
            engine = create_database_engine(_schema_url(schema))
            try:
                upgrade_database(engine)
                metadata = MetaData()
                metadata.reflect(engine)
                with engine.connect() as connection:
                    sequences = connection.scalars(
                        text(
                            "SELECT sequence_name FROM information_schema.sequences"
                            " WHERE sequence_schema = :schema ORDER BY sequence_name"
                        ),
                        {"schema": schema},
                    ).all()
            finally:
                engine.dispose()
            # Referencing tables first, so that no foreign key refuses a delete.
            self._tables = [
                table.name
                for table in reversed(metadata.sorted_tables)
                if table.name != VERSION_TABLE
            ]
            self._sequences = list(sequences)
        return self._schema
