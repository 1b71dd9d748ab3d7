from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from newscrawl.storage.migrations import upgrade_database
from tests.database_support import DIALECTS, open_test_database, open_test_engine


@pytest.fixture(params=DIALECTS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with open_test_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture(params=DIALECTS)
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    with open_test_engine(request.param, tmp_path) as engine:
        yield engine


@pytest.fixture
def engine(empty_engine: Engine) -> Engine:
    upgrade_database(empty_engine)
    return empty_engine
