"""`newscrawl demo` end to end: serve, crawl with both spiders, print the summary."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.e2e.crawl_support import REPO_ROOT


def test_demo_crawls_the_network_and_prints_sample_sql(tmp_path: Path) -> None:
    database = tmp_path / "demo.db"
    done = subprocess.run(
        [sys.executable, "-m", "newscrawl", "demo", "--database", str(database), "--port", "0"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = done.stdout
    assert "== Articles stored: 99" in out
    assert "articles_fts MATCH 'telescope'" in out
    assert "(query failed" not in out
    f1_values = [float(v) for v in re.findall(r"^\S+\s+\d+\s+(0\.\d+|1\.000)", out, re.MULTILINE)]
    assert len(f1_values) == 3 and min(f1_values) >= 0.9
    with sqlite3.connect(database) as connection:
        (count,) = connection.execute("SELECT count(DISTINCT url) FROM articles").fetchone()
    assert count == 99
