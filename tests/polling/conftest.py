from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from newscrawl.storage.engine import create_database_engine
from tests.database_support import DIALECTS, MigratedDatabases


@pytest.fixture(params=DIALECTS)
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_databases: MigratedDatabases
) -> str:
    """The URL of a migrated database, on each dialect: the session's, emptied for this test."""
    return migrated_databases.empty_url(request.param, tmp_path)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a migrated database, on each dialect."""
    engine = create_database_engine(database_url)
    try:
        yield engine
    finally:
        engine.dispose()
