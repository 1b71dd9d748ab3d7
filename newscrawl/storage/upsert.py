"""INSERT ... ON CONFLICT DO UPDATE for SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.expression import Executable


def build_upsert(
    dialect_name: str,
    table: Table,
    values: Mapping[str, Any],
    *,
    conflict_columns: Iterable[str],
    update_columns: Iterable[str] | None = None,
) -> Insert:
    """Insert `values`, or update `update_columns` (default: all given but the key) on conflict."""
    keys = list(conflict_columns)
    if dialect_name == "postgresql":
        pg_stmt = postgresql.insert(table).values(dict(values))
        columns = list(update_columns) if update_columns is not None else _non_key(values, keys)
        if not columns:
            return pg_stmt.on_conflict_do_nothing(index_elements=keys)
        return pg_stmt.on_conflict_do_update(
            index_elements=keys, set_={name: pg_stmt.excluded[name] for name in columns}
        )
    if dialect_name == "sqlite":
        lite_stmt = sqlite.insert(table).values(dict(values))
        columns = list(update_columns) if update_columns is not None else _non_key(values, keys)
        if not columns:
            return lite_stmt.on_conflict_do_nothing(index_elements=keys)
        return lite_stmt.on_conflict_do_update(
            index_elements=keys, set_={name: lite_stmt.excluded[name] for name in columns}
        )
    raise ValueError(f"upserts are not supported on {dialect_name!r} databases")


def _non_key(values: Iterable[str], keys: list[str]) -> list[str]:
    return [name for name in values if name not in keys]


@dataclass(frozen=True)
class PreparedUpsert:
    """An upsert of whole rows, built once per dialect; each call binds only its values.

    Building a statement from a values dict costs SQLAlchemy about as much as the database
    takes to run it (a few ms for a page or an article row); a prepared one skips that.
    """

    table: Table
    columns: frozenset[str]
    statements: Mapping[str, Executable]

    def execute(self, session: Session, values: Mapping[str, Any]) -> Any:
        """Run the upsert with `values` (every column of the row) and return its result."""
        self._check_columns(values)
        statement = self._statement(session)
        # Core on the session's connection: the ORM execute path costs more than the insert.
        return session.connection().execute(statement, dict(values))

    def execute_many(self, session: Session, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run the upsert for every row (each with every column) in one executemany."""
        if not rows:
            return
        for values in rows:
            self._check_columns(values)
        statement = self._statement(session)
        session.connection().execute(statement, [dict(values) for values in rows])

    def execute_returning(
        self, session: Session, rows: Sequence[Mapping[str, Any]]
    ) -> list[tuple[Any, ...]]:
        """Run the upsert for every row in one executemany; its RETURNING rows, in no order."""
        for values in rows:
            self._check_columns(values)
        statement = self._statement(session)
        result = session.connection().execute(statement, [dict(values) for values in rows])
        return [tuple(row) for row in result]

    def _check_columns(self, values: Mapping[str, Any]) -> None:
        if values.keys() != self.columns:
            # A missing column would be overwritten with NULL on conflict: never silently.
            raise ValueError(
                f"upsert into {self.table.name} needs exactly the columns"
                f" {sorted(self.columns)}, not {sorted(values)}"
            )

    def _statement(self, session: Session) -> Executable:
        dialect = session.get_bind().dialect.name
        statement = self.statements.get(dialect)
        if statement is None:
            raise ValueError(f"upserts are not supported on {dialect!r} databases")
        return statement


def prepare_upsert(
    table: Table,
    *,
    conflict_columns: Iterable[str],
    columns: Iterable[str] | None = None,
    update_columns: Iterable[str] | None = None,
    returning: Iterable[str] = (),
) -> PreparedUpsert:
    """An upsert of `columns` (default: every one but the primary key); on conflict,
    `update_columns` (default: every one of them but the conflict key) take the new values."""
    keys = list(conflict_columns)
    if columns is None:
        columns = [column.name for column in table.columns if not column.primary_key]
    columns = list(columns)
    updates = list(update_columns) if update_columns is not None else _non_key(columns, keys)
    statements: dict[str, Executable] = {}
    for dialect, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert)):
        base = insert(table)
        statement: Executable
        if updates:
            statement = base.on_conflict_do_update(
                index_elements=keys, set_={name: base.excluded[name] for name in updates}
            )
        else:
            statement = base.on_conflict_do_nothing(index_elements=keys)
        if returning:
            statement = statement.returning(*(table.c[name] for name in returning))
        statements[dialect] = statement
    return PreparedUpsert(table=table, columns=frozenset(columns), statements=statements)
