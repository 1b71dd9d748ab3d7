from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from newscrawl.storage.engine import create_database_engine
from tests.database_support import DIALECTS, MigratedDatabases, open_test_database, open_test_engine


@pytest.fixture(params=DIALECTS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with open_test_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture(params=DIALECTS)
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    with open_test_engine(request.param, tmp_path) as engine:
        yield engine


@pytest.fixture(params=DIALECTS)
def engine(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_databases: MigratedDatabases
) -> Iterator[Engine]:
    """An engine on the session's migrated database, emptied for this test."""
    engine = create_database_engine(migrated_databases.empty_url(request.param, tmp_path))
    try:
        yield engine
    finally:
        engine.dispose()
