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

# The longest modules, longest first (seconds: each module's test durations summed, in one
# `pytest -n 4 --dist loadfile` run with the compiled loops on the loaded 2-core machine,
# 2026-11-29, before test_decoding compared trees only). `make test` hands whole modules to its
# workers in this order, so that none of these starts late and runs on after the others finished
# (in that run the unlisted pipelines/test_crawl.py started at 620 s of 750 and ran 103 s).
LONGEST_FIRST = (
    "tests/test_quality_gate.py",  # 619 s: out-of-sample fits and extraction of every dev set
    "tests/e2e/test_installed_wheel.py",  # 424 s: builds the sdist and the wheel, installs them
    "tests/e2e/test_exit_codes.py",  # 184 s: a crawl process per test
    "tests/polling/test_repolling_crawls.py",  # 131 s
    "tests/e2e/test_demo_crawls.py",  # 126 s
    "tests/hostile/test_database_down.py",  # 120 s
    "tests/pipelines/test_crawl.py",  # 103 s
    "tests/extraction/test_properties.py",  # 97 s
    "tests/pipelines/test_neighbour_buffer.py",  # 75 s
    "tests/scale_out/test_shared_crawl.py",  # 67 s
    "tests/extraction/test_compiled_walk.py",  # 61 s (skipped in the pure-Python run)
    "tests/extraction/test_dynamic_noise.py",  # 56 s
    "tests/hostile/test_database_faults.py",  # 48 s
    "tests/polling/test_repolling_resume.py",  # 48 s
    "tests/extraction/test_metadata_scan.py",  # 48 s
    "tests/bench/test_crawl_workers.py",  # 46 s
    "tests/e2e/test_demo_command.py",  # 45 s
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
