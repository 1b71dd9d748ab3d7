"""Run the Alembic migrations from code: at crawl start and from `newscrawl db`."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.retry import call_with_retry

# In a checkout migrations/ sits at the repository root, beside the newscrawl package; a wheel
# carries it inside the package (pyproject.toml's package-dir), as newscrawl/migrations.
_PACKAGE_DIR = Path(__file__).resolve().parents[1]
MIGRATIONS_DIRS = (_PACKAGE_DIR / "migrations", _PACKAGE_DIR.parent / "migrations")
# Alembic's `context` and `op` are process-wide proxies, so two threads must never run
# commands at once (pipelines open concurrently). Across processes the databases lock.
_ALEMBIC_LOCK = threading.Lock()
VERSION_TABLE = "alembic_version"


def find_migrations_dir() -> Path:
    """The Alembic script directory, installed or in a checkout."""
    for directory in MIGRATIONS_DIRS:
        if (directory / "env.py").is_file():
            return directory
    raise FileNotFoundError(
        f"newscrawl's migrations are missing: none of {', '.join(map(str, MIGRATIONS_DIRS))}"
    )


def build_alembic_config(database_url: str | None = None) -> Config:
    """An Alembic config for our migrations, independent of the working directory."""
    config = Config()
    config.set_main_option("script_location", str(find_migrations_dir()))
    if database_url is not None:
        config.attributes["database_url"] = database_url
    return config


def upgrade_database(engine: Engine, revision: str = "head") -> None:
    """Apply every pending migration to the engine's database (idempotent)."""
    if revision == "head" and read_current_revision(engine) == read_head_revision():
        return
    with _ALEMBIC_LOCK, engine.connect() as connection:
        config = build_alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        connection.commit()


def downgrade_database(engine: Engine, revision: str) -> None:
    """Revert the database to an older revision ("base" drops everything)."""
    with _ALEMBIC_LOCK, engine.connect() as connection:
        config = build_alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
        connection.commit()


def read_current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None when it was never migrated.

    Read from alembic_version directly: a MigrationContext would log its INFO lines on
    every crawl start, when they only matter while a migration runs.
    """
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return None
        versions = list(connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")))
    if len(versions) > 1:
        # Several heads: let Alembic say so the way it always does.
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    return str(versions[0][0]) if versions else None


def read_head_revision() -> str | None:
    """The newest revision in migrations/."""
    return ScriptDirectory.from_config(build_alembic_config()).get_current_head()


def open_database(
    url: str,
    *,
    migrate: bool = True,
    guard: Callable[[Callable[[], None]], Callable[[], None]] | None = None,
) -> Engine:
    """Create an engine for `url`, first bringing its schema up to date when `migrate`.

    `guard` wraps each attempt, so that a crawl already stopping can end the retries.
    """
    engine = create_database_engine(url)
    if migrate:
        upgrade: Callable[[], None] = functools.partial(upgrade_database, engine)
        try:
            # Alembic runs each upgrade in one transaction, so a lost connection rolls it
            # back whole and the retry starts over from the recorded revision.
            call_with_retry(guard(upgrade) if guard is not None else upgrade)
        except BaseException:
            engine.dispose()
            raise
    return engine
