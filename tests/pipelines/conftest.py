from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.database_support import DIALECTS, open_test_database


@pytest.fixture(params=DIALECTS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with open_test_database(request.param, tmp_path) as url:
        yield url
