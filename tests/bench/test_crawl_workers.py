"""bench.crawl_speed --workers, tiny: two workers share Redis and PostgreSQL, no duplicates."""

from __future__ import annotations

import json
from pathlib import Path

from bench.crawl_speed import main

PAGES = 60


def test_two_workers_store_every_page_once_and_fetch_none_twice(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    argv = [
        "--pages",
        str(PAGES),
        "--scales",
        "",
        "--modes",
        "feeds",
        "--stores",
        "",
        "--workers",
        "2",
        # Few requests per worker, so that one worker cannot drain the shared queue alone.
        "-s",
        "CONCURRENT_REQUESTS=2",
        "--out-dir",
        str(tmp_path / "logs"),
        "--json",
        str(report_path),
    ]
    assert main(argv) == 0
    report = json.loads(report_path.read_text())
    [run] = report["workers"]
    assert run["workers"] == 2 and run["mode"] == "feeds"
    assert run["stored"] == run["served"] == PAGES
    assert run["duplicate_fetches"] == 0
    assert run["duplicate_rows"] == 0
    assert run["pending_pages"] == run["failed_pages"] == 0
    assert run["pages_per_second"] > 0
    assert run["worker_cpu_ms_per_page"] > 0 and run["bare_cpu_ms_per_page"] > 0
    assert run["transactions_per_page"] > 0
    assert run["bare_pages_per_second"] > 0 and run["ratio_to_bare"] > 0
    # Both workers took part and the dupefilter in Redis holds what they scheduled.
    assert len(run["per_worker"]) == 2
    assert sum(worker["stored"] for worker in run["per_worker"]) == PAGES
    assert all(worker["returncode"] == 0 for worker in run["per_worker"])
    # Both workers are watched while they run (with their extraction processes).
    assert all(worker["peak_tree_rss_mb"] > 0 for worker in run["per_worker"])
    assert run["dupefilter_fingerprints"] >= PAGES
    assert run["redis_crawl_keys_bytes"] > 0
    assert run["redis_used_memory_before"] > 0 and run["redis_used_memory_after"] > 0
    assert report["losses"] == []
