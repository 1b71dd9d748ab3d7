"""`newscrawl demo` end to end: serve, crawl with both spiders, print the summary."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
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


def test_keep_serving_stops_on_ctrl_c_and_ends_with_next_commands(tmp_path: Path) -> None:
    database = tmp_path / "demo.db"
    log = tmp_path / "demo.log"
    with log.open("w") as output:
        demo = subprocess.Popen(
            [sys.executable, "-m", "newscrawl", "demo", "--database", str(database),
             "--port", "0", "--keep-serving"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stdout=output, stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 180
        while "press Ctrl-C" not in log.read_text() and "Try next" not in log.read_text():
            assert demo.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.5)
        out = log.read_text()
        next_steps = out[out.index("Try next"):].splitlines()[1:]
        assert [line.split()[:3] for line in next_steps[:3]] == [
            ["newscrawl", "status", "--database-url"],
            ["newscrawl", "crawl", "rss"],
            ["newscrawl", "crawl", "sitemap"],
        ]
        feed = re.search(r"feed=(\S+)", out)
        assert feed is not None
        # Still serving after the summary.
        with urllib.request.urlopen(feed.group(1), timeout=10) as response:
            assert response.status == 200
        demo.send_signal(signal.SIGINT)
        assert demo.wait(timeout=60) == 0, log.read_text()[-3000:]
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert "Stopped serving the demo network." in log.read_text()
    assert "Traceback" not in log.read_text()
