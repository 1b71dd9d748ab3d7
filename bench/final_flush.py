"""End-of-crawl flush: seconds from the last fetch to the spider's close, neighbour buffer on/off.

Run from the repository root:

    .venv/bin/python -m bench.final_flush --groups 135 --pages-per-group 2

A loopback server serves GROUPS small (site, category) groups of PAGES_PER_GROUP pages each, too
few to learn a template while the crawl runs: with the buffer on, every page waits for the
final idle flush, which extracts each group with a partial template (or single-page). Each
crawl is its own process (tests/pipelines/crawl_script.py: the project's pipelines on a
loopback spider) into a fresh SQLite file, the buffer on and off in the same run. It prints
the seconds from the last response to spider_closed for both, the batch delays the store's
writer waited (newscrawl/store/delays) and the articles stored.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path

from newscrawl.demo.serving import TextRequestHandler
from newscrawl.stats_keys import SQL_STORAGE_ARTICLES_STORED, STORE_DELAYS
from tests.pipelines.page_factory import build_page_html

REPO_ROOT = Path(__file__).resolve().parents[1]
CRAWL_SCRIPT = REPO_ROOT / "tests" / "pipelines" / "crawl_script.py"


def build_paths(groups: int, pages_per_group: int) -> list[str]:
    """One category directory per group; story numbers unique across the run."""
    return [
        f"/group{group}/story-{group * pages_per_group + page}.html"
        for group in range(groups)
        for page in range(pages_per_group)
    ]


class PageHandler(TextRequestHandler):
    paths: frozenset[str] = frozenset()

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        if self.path not in self.paths:
            self.send_error(404)
            return
        category = self.path.split("/")[1]
        number = int(self.path.rsplit("-", 1)[1].split(".")[0])
        html = build_page_html("flush.bench", category, number)
        self.send_text(200, "text/html; charset=utf-8", html)


@contextmanager
def serve_pages(paths: list[str]) -> Iterator[str]:
    handler = type("BenchPageHandler", (PageHandler,), {"paths": frozenset(paths)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass(frozen=True)
class FlushRun:
    """One crawl: seconds from its last response to its close, and what its stats said."""

    buffer: bool
    close_seconds: float
    delays: int
    articles: int


def read_stat(log: str, key: str) -> int:
    match = re.search(rf"'{re.escape(key)}': (\d+)", log)
    return int(match.group(1)) if match else 0


def run_crawl(base_url: str, paths: list[str], directory: Path, *, buffer: bool) -> FlushRun:
    database_url = f"sqlite:///{directory / ('buffer.db' if buffer else 'no-buffer.db')}"
    settings = {
        "NEWSCRAWL_SSRF_ALLOWLIST": ["127.0.0.1"],
        "NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED": buffer,
        "NEWSCRAWL_PROGRESS_INTERVAL": 0,
    }
    done = subprocess.run(
        [sys.executable, str(CRAWL_SCRIPT), base_url, database_url, json.dumps(settings), *paths],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("CRAWL_TIMING ")]
    times = json.loads(line.removeprefix("CRAWL_TIMING "))
    return FlushRun(
        buffer=buffer,
        close_seconds=times["spider_closed"] - times["last_response"],
        delays=read_stat(done.stderr, STORE_DELAYS),
        articles=read_stat(done.stderr, SQL_STORAGE_ARTICLES_STORED),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=135)
    parser.add_argument("--pages-per-group", type=int, default=2)
    args = parser.parse_args(argv)
    paths = build_paths(args.groups, args.pages_per_group)
    with tempfile.TemporaryDirectory() as temporary, serve_pages(paths) as base_url:
        runs = [
            run_crawl(base_url, paths, Path(temporary), buffer=buffer) for buffer in (True, False)
        ]
    print(f"{args.groups} groups of {args.pages_per_group} pages ({len(paths)} pages)")
    print(f"{'buffer':<8} {'last fetch -> close (s)':>24} {'batch delays':>13} {'articles':>9}")
    for run in runs:
        label = "on" if run.buffer else "off"
        print(f"{label:<8} {run.close_seconds:>24.2f} {run.delays:>13} {run.articles:>9}")


if __name__ == "__main__":
    main()
