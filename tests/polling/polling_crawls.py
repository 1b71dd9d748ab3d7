"""Run re-polling crawls in a subprocess (a reactor per process) and read the feed state back."""

from __future__ import annotations

import os
import subprocess
import sys

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.feed_repository import FeedRepository, FeedState
from tests.e2e.crawl_support import REPO_ROOT, CrawlResult

CRAWL_TIMEOUT_SECONDS = 120


def run_polling_crawl(
    spider: str, arguments: dict[str, str], database_url: str, settings: dict[str, str]
) -> CrawlResult:
    """`scrapy crawl` with re-polling; CLOSESPIDER_TIMEOUT in `settings` ends it."""
    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in arguments.items():
        command += ["-a", f"{name}={value}"]
    base = {
        "NEWSCRAWL_DATABASE_URL": database_url,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": "False",
        "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
        "NEWSCRAWL_POLL_TICK": "0.2",
    }
    for name, value in {**base, **settings}.items():
        command += ["-s", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=CRAWL_TIMEOUT_SECONDS, check=False,
    )
    return CrawlResult(done.returncode, done.stdout + done.stderr)


def read_feed(database_url: str, url: str) -> FeedState | None:
    """The stored state of one feed."""
    engine = create_database_engine(database_url)
    try:
        return FeedRepository(engine).load_feed(url)
    finally:
        engine.dispose()
