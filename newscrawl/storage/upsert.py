"""INSERT ... ON CONFLICT DO UPDATE for SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert


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


def _non_key(values: Mapping[str, Any], keys: list[str]) -> list[str]:
    return [name for name in values if name not in keys]
