"""Alembic environment: migrates the newscrawl store on SQLite or PostgreSQL."""

from __future__ import annotations

import os
from logging.config import fileConfig
from typing import Any

from alembic import context
from sqlalchemy import Connection, String, text

from newscrawl.storage.engine import DEFAULT_DATABASE_URL, create_database_engine
from newscrawl.storage.models import Base

# Full-text objects are created by raw DDL per dialect, so autogenerate must not see them.
FTS_TABLE_PREFIX = "articles_fts"
FTS_COLUMNS = frozenset({"search_vector"})
FTS_INDEXES = frozenset({"ix_articles_search_vector"})
# Any constant works; it only has to be the same for every worker migrating the same database.
MIGRATION_LOCK_ID = 4_711_003

config = context.config
target_metadata = Base.metadata
if config.config_file_name is not None:
    # Only the alembic command line reads alembic.ini; newscrawl keeps its own logging.
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    """Skip the FTS5 virtual table and its shadow tables before they are reflected."""
    return not (type_ == "table" and name is not None and name.startswith(FTS_TABLE_PREFIX))


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Skip the full-text search objects that only the migrations know about."""
    if type_ == "table" and name is not None and name.startswith(FTS_TABLE_PREFIX):
        return False
    if type_ == "column" and name in FTS_COLUMNS:
        return False
    return not (type_ == "index" and name in FTS_INDEXES)


def compare_type(
    context: Any,
    inspected_column: Any,
    metadata_column: Any,
    inspected_type: Any,
    metadata_type: Any,
) -> bool | None:
    """SQLite ignores string lengths, so VARCHAR(n) from before 0003 is the models' text there
    (PostgreSQL's columns are altered by 0003). Anything else: Alembic's own comparison."""
    if (
        context.dialect.name == "sqlite"
        and isinstance(inspected_type, String)
        and isinstance(getattr(metadata_type, "impl", metadata_type), String)
    ):
        return False
    return None


def database_url() -> str:
    """The caller's URL, else NEWSCRAWL_DATABASE_URL, else alembic.ini, else the default."""
    return str(
        config.attributes.get("database_url")
        or os.environ.get("NEWSCRAWL_DATABASE_URL")
        or config.get_main_option("sqlalchemy.url")
        or DEFAULT_DATABASE_URL
    )


def configure_context(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        include_name=include_name,
        include_object=include_object,
        compare_type=compare_type,
        render_as_batch=connection.dialect.name == "sqlite",
        # Our SQLite engine issues real BEGINs, so a failed migration rolls back there too.
        transactional_ddl=True,
    )


def run_migrations(connection: Connection) -> None:
    configure_context(connection)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Workers starting together must not run the same DDL twice.
            connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
        context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        include_name=include_name,
        include_object=include_object,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    engine = create_database_engine(database_url())
    try:
        with engine.connect() as connection:
            run_migrations(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
