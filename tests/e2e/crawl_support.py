"""Run real crawls of the demo network in a subprocess, and read back what they stored."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from newscrawl.demo import DemoNetworkServer
from newscrawl.storage.models import Article, Page

REPO_ROOT = Path(__file__).resolve().parents[2]
POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
CRAWL_TIMEOUT_SECONDS = 180
# The crash tests kill a crawl once it has stored this many pages.
KILL_AFTER_PAGES = 30


@dataclass(frozen=True)
class CrawlResult:
    """A finished crawl process: exit status and its log."""

    returncode: int
    log: str

    def stat(self, key: str) -> int:
        """Return an integer counter from the final stats dump (0 when absent)."""
        match = re.search(rf"'{re.escape(key)}': (\d+)", self.log)
        return int(match.group(1)) if match else 0


def run_crawl(
    spider: str,
    arguments: dict[str, str],
    database_url: str,
    settings: dict[str, str] | None = None,
) -> CrawlResult:
    """Run `scrapy crawl` from the repository root, as a user would; a reactor per process."""
    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in arguments.items():
        command += ["-a", f"{name}={value}"]
    command += [
        "-s", f"NEWSCRAWL_DATABASE_URL={database_url}",
        "-s", "LOG_LEVEL=INFO",
        "-s", "TELNETCONSOLE_ENABLED=False",
        "-s", "NEWSCRAWL_SSRF_ALLOWLIST=127.0.0.1",
    ]
    for name, value in (settings or {}).items():
        command += ["-s", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=CRAWL_TIMEOUT_SECONDS, check=False,
    )
    return CrawlResult(done.returncode, done.stdout + done.stderr)


def write_feeds_file(lines: Iterable[str], directory: Path) -> Path:
    """Write a feeds file (one line per feed) into `directory`; return its path."""
    path = directory / "feeds.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def list_article_urls(network: DemoNetworkServer) -> set[str]:
    """The URL of every article of the running demo network."""
    return {
        network.base_urls[site.key] + article.path
        for site in network.sites
        for article in site.articles
    }


def count_pages(database: Path) -> int:
    """Pages stored so far in a SQLite database a crawl is writing (0 before migrations)."""
    if not database.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
            return int(connection.execute("SELECT count(*) FROM pages").fetchone()[0])
    except sqlite3.OperationalError:  # not migrated yet
        return 0


def crawl_until_killed(arguments: dict[str, str], database: Path) -> None:
    """Run a slow rss crawl into SQLite and SIGKILL it once it stored KILL_AFTER_PAGES pages."""
    command = [sys.executable, "-m", "scrapy", "crawl", "rss"]
    for name, value in arguments.items():
        command += ["-a", f"{name}={value}"]
    command += [
        "-s", f"NEWSCRAWL_DATABASE_URL=sqlite:///{database}",
        # Slow enough to be caught midway: one request at a time, a tenth of a second apart.
        "-s", "DOWNLOAD_DELAY=0.1", "-s", "CONCURRENT_REQUESTS=1",
        "-s", "LOG_LEVEL=WARNING", "-s", "TELNETCONSOLE_ENABLED=False",
        "-s", "NEWSCRAWL_SSRF_ALLOWLIST=127.0.0.1",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while count_pages(database) < KILL_AFTER_PAGES:
            assert process.poll() is None, "the crawl ended before it could be killed"
            assert time.monotonic() < deadline, "the crawl stored too few pages"
            time.sleep(0.2)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


@dataclass(frozen=True)
class StoredArticle:
    """The columns of a stored article the end-to-end tests check."""

    url: str
    title: str
    text: str
    site: str
    category: str
    published_at: datetime | None
    authors: tuple[str, ...]
    extraction_method: str


def read_articles(database_url: str) -> list[StoredArticle]:
    """Return every stored article."""
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            return [
                StoredArticle(
                    url=a.url, title=a.title, text=a.text, site=a.site, category=a.category,
                    published_at=as_utc(a.published_at), authors=tuple(a.authors or ()),
                    extraction_method=a.extraction_method,
                )
                for a in session.scalars(select(Article))
            ]
    finally:
        engine.dispose()


def read_page_statuses(database_url: str) -> dict[str, str]:
    """Return the status of every stored page, by URL."""
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            return {url: status for url, status in session.execute(select(Page.url, Page.status))}
    finally:
        engine.dispose()


def as_utc(value: datetime | None) -> datetime | None:
    """Read naive database datetimes as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def build_postgres_url(name: str) -> str:
    """The psycopg URL of database `name` on the test PostgreSQL server."""
    return POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def terminate_connections(admin: psycopg.Connection[Any], name: str) -> int:
    """Kill every other connection to database `name`; return how many were killed."""
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = %s AND pid <> pg_backend_pid()",
        (name,),
    ).fetchall()
    return sum(1 for (killed,) in rows if killed)


@contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """Yield the SQLAlchemy URL of a new PostgreSQL database, dropped afterwards."""
    name = f"newscrawl_e2e_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
