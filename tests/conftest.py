from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.database_support import MigratedDatabases


@pytest.fixture(scope="session")
def migrated_databases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MigratedDatabases]:
    """The session's migrated databases, one per dialect, each migrated on first use."""
    databases = MigratedDatabases(tmp_path_factory.mktemp("migrated"))
    try:
        yield databases
    finally:
        databases.close()
