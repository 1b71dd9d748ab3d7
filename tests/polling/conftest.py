from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import upgrade_database
from tests.database_support import DIALECTS, open_test_database


@pytest.fixture(params=DIALECTS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a migrated database, on each dialect."""
    with open_test_database(request.param, tmp_path) as url:
        engine = create_database_engine(url)
        try:
            upgrade_database(engine)
        finally:
            engine.dispose()
        yield url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a migrated database, on each dialect."""
    engine = create_database_engine(database_url)
    try:
        yield engine
    finally:
        engine.dispose()
