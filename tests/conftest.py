from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.database_support import MigratedDatabases

# Under `pytest -n` each worker shares the 2 cores with the others. OpenMP's threads (scikit-learn's
# tree fitting, in the quality gate) spin while they wait for each other, and on busy cores that
# wastes most of their time: a 300k-row fit took 21-25 s of CPU with two threads against 5.5 s with
# one, on the loaded machine. So one thread per worker (and its subprocesses), unless set.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# The longest modules, longest first (seconds in one serial run on the loaded 2-core machine,
# 2026-11-29: the 40 slowest tests summed per module). `make test` hands whole modules to its
# workers in this order, so that none of these starts late and runs on after the others finished.
LONGEST_FIRST = (
    "tests/e2e/test_installed_wheel.py",  # 390 s: builds the sdist and the wheel, installs them
    "tests/test_quality_gate.py",  # 151 s: out-of-sample fits and extraction of every dev set
    "tests/hostile/test_database_down.py",  # 64 s
    "tests/polling/test_repolling_crawls.py",  # 58 s
    "tests/e2e/test_demo_crawls.py",  # 55 s
    "tests/extraction/test_decoding.py",  # 49 s
    "tests/extraction/test_properties.py",  # 44 s
    "tests/bench/test_crawl_workers.py",  # 42 s
    "tests/scale_out/test_shared_crawl.py",  # 37 s
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the LONGEST_FIRST modules first, in that order; the rest keep their order."""
    rank = {path: number for number, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session")
def migrated_databases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MigratedDatabases]:
    """The session's migrated databases, one per dialect, each migrated on first use."""
    databases = MigratedDatabases(tmp_path_factory.mktemp("migrated"))
    try:
        yield databases
    finally:
        databases.close()
