from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.database_support import DIALECTS, MigratedDatabases, open_test_database


@pytest.fixture(params=DIALECTS)
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_databases: MigratedDatabases
) -> str:
    """The session's migrated database, emptied for this test."""
    return migrated_databases.empty_url(request.param, tmp_path)


@pytest.fixture(params=DIALECTS)
def own_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty, unmigrated database of the test's own, for tests that change its schema."""
    with open_test_database(request.param, tmp_path) as url:
        yield url
