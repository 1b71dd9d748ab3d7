"""Run the spiders over the hostile server in subprocesses and read back what they left."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from newscrawl.storage.models import Article, CrawlRun, Page

REPO_ROOT = Path(__file__).resolve().parents[2]
CRAWL_TIMEOUT_SECONDS = 120
# Short, so the stalling server costs seconds; one retry keeps the retry path exercised.
TEST_SETTINGS = {
    "DOWNLOAD_TIMEOUT": "2",
    "RETRY_TIMES": "1",
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": "False",
    "NEWSCRAWL_PROGRESS_INTERVAL": "0",
    "NEWSCRAWL_NEIGHBOURS": "5",
}


@dataclass(frozen=True)
class StoredPage:
    """A row of `pages`."""

    status: str
    error: str | None
    title: str | None


@dataclass(frozen=True)
class StoredArticle:
    """The columns of a row of `articles` these tests look at."""

    title: str
    text: str
    html: str


@dataclass(frozen=True)
class CrawlOutcome:
    """A finished crawl: exit status, log, final stats and the rows it stored."""

    returncode: int
    log: str
    stats: dict[str, Any]
    pages: dict[str, StoredPage]
    articles: dict[str, StoredArticle]

    def stat(self, key: str) -> int:
        """An integer counter from the crawl's stats (0 when absent)."""
        return int(self.stats.get(key) or 0)


def start_crawl(
    spider: str, arguments: dict[str, str], database_url: str, settings: dict[str, str]
) -> subprocess.Popen[str]:
    """Start `scrapy crawl` from the repository root, as a user would."""
    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in arguments.items():
        command += ["-a", f"{name}={value}"]
    command += ["-s", f"NEWSCRAWL_DATABASE_URL={database_url}"]
    for name, value in {**TEST_SETTINGS, **settings}.items():
        command += ["-s", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )


def finish_crawl(process: subprocess.Popen[str], database_url: str) -> CrawlOutcome:
    """Wait for a crawl started by start_crawl and read what it stored."""
    log, _ = process.communicate(timeout=CRAWL_TIMEOUT_SECONDS)
    return read_outcome(process.returncode, log, database_url)


def read_outcome(returncode: int, log: str, database_url: str) -> CrawlOutcome:
    """What a finished crawl stored, with its exit status and log."""
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            runs = list(session.scalars(select(CrawlRun).order_by(CrawlRun.id)))
            stored_stats = runs[-1].stats if runs else None
            stats = dict(stored_stats) if stored_stats else read_logged_stats(log)
            pages = {
                p.url: StoredPage(p.status, p.error, p.title) for p in session.scalars(select(Page))
            }
            articles = {
                a.url: StoredArticle(a.title, a.text, a.html)
                for a in session.scalars(select(Article))
            }
    finally:
        engine.dispose()
    return CrawlOutcome(returncode, log, stats, pages, articles)


def read_logged_stats(log: str) -> dict[str, Any]:
    """The integer counters of Scrapy's final stats dump, when no crawl_runs row exists."""
    return {key: int(value) for key, value in re.findall(r"'([^']+)': (\d+)", log)}


def dump_outcome(outcome: CrawlOutcome) -> str:
    """A readable summary for assertion messages."""
    return json.dumps(
        {"pages": {u: [p.status, p.error] for u, p in outcome.pages.items()},
         "articles": sorted(outcome.articles), "log_tail": outcome.log[-4000:]},
        indent=1, ensure_ascii=False,
    )


def assert_every_page_stored(outcome: CrawlOutcome, fetched: int) -> None:
    """Every one of the `fetched` pages stored, extracted, with its article."""
    assert len(outcome.pages) == fetched, dump_outcome(outcome)
    assert all(page.status == "extracted" for page in outcome.pages.values()), (
        dump_outcome(outcome)
    )
    assert set(outcome.articles) == set(outcome.pages)
