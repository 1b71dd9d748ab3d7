"""Loopback sites for discovery crawls: one server (one host:port) per site, bytes per path.

Each test case is a site whose routes are written in the test; any path under /news/ that
has no route is an article page. The crawls run as `scrapy crawl` subprocesses, as a user
runs them, and what they stored is read back from SQLite.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from newscrawl.storage.models import Page

REPO_ROOT = Path(__file__).resolve().parents[2]
CRAWL_TIMEOUT_SECONDS = 240
CRAWL_SETTINGS = {
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": "False",
    "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
    "NEWSCRAWL_PROGRESS_INTERVAL": "0",
    "NEWSCRAWL_EXTRACTION_WORKERS": "0",
    "NEWSCRAWL_NEIGHBOURS": "2",
    "DOWNLOAD_TIMEOUT": "20",
    "RETRY_ENABLED": "False",
}


@dataclass(frozen=True)
class Route:
    """What one path answers."""

    body: bytes
    content_type: str = "application/xml"
    headers: tuple[tuple[str, str], ...] = ()
    status: int = 200
    delay: float = 0.0


def article_page(path: str) -> bytes:
    """A small article page whose text names its path."""
    words = " ".join(["Council", "members", "voted", "on", "the", "harbour", "plan"] * 12)
    return (
        f"<html><head><title>Page {path}</title></head><body><article><h1>Page {path}</h1>"
        f"<p>{words} ({path}).</p><p>{words}.</p></article></body></html>"
    ).encode()


def gzipped(data: bytes) -> bytes:
    """Gzip `data` with a fixed timestamp."""
    return gzip.compress(data, mtime=0)


def urlset(*locs: str, extra: str = "") -> bytes:
    """A urlset listing `locs`; `extra` goes inside each <url> (news data...)."""
    urls = "".join(f"<url><loc>{loc}</loc>{extra}</url>" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
        ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
        f"{urls}</urlset>"
    ).encode()


def sitemap_index(*locs: str) -> bytes:
    """A sitemapindex listing `locs`."""
    children = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{children}'
        "</sitemapindex>"
    ).encode()


def rss(*items: str, channel: str = "") -> bytes:
    """An RSS 2.0 feed of raw <item> bodies."""
    body = "".join(f"<item>{item}</item>" for item in items)
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"'
        ' xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f"<channel><title>Loopback</title><link>/</link>{channel}{body}</channel></rss>"
    ).encode()


class SiteServer(ThreadingHTTPServer):
    """One loopback site; `routes` is filled in once its base URL is known."""

    daemon_threads = True

    def __init__(self, name: str) -> None:
        super().__init__(("127.0.0.1", 0), SiteHandler)
        self.name = name
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"
        self.routes: dict[str, Route] = {}
        self.requested: Counter[str] = Counter()
        self.lock = threading.Lock()

    def url(self, path: str) -> str:
        """The absolute URL of `path` on this site."""
        return self.base_url + path

    def handle_error(self, request: object, client_address: object) -> None:
        """Stay quiet: a client hanging up is not a test failure."""


class SiteHandler(BaseHTTPRequestHandler):
    """Answer GET from the site's routes; unrouted /news/ paths are article pages."""

    server: SiteServer

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        with self.server.lock:
            self.server.requested[self.path] += 1
        route = self.server.routes.get(self.path)
        if route is None and self.path.startswith("/news/"):
            route = Route(article_page(self.path), "text/html; charset=utf-8")
        route = route or Route(b"not found", "text/plain", status=404)
        if route.delay:
            time.sleep(route.delay)
        try:
            self.send_response(route.status)
            self.send_header("Content-Type", route.content_type)
            for name, value in route.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            self.wfile.write(route.body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: tests read `requested` instead."""


@contextmanager
def serve_sites(builders: dict[str, Callable[[SiteServer], dict[str, Route]]]) -> Iterator[
    dict[str, SiteServer]
]:
    """Start one server per site, fill in its routes, stop them all afterwards."""
    servers: dict[str, SiteServer] = {}
    threads: list[threading.Thread] = []
    try:
        for name, build in builders.items():
            server = SiteServer(name)
            server.routes = build(server)
            servers[name] = server
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            threads.append(thread)
        yield servers
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()


@dataclass(frozen=True)
class StoredPage:
    """What a crawl stored for one fetched page."""

    title: str | None
    published_at: datetime | None
    authors: tuple[str, ...]
    feed_url: str | None


@dataclass(frozen=True)
class CrawlOutcome:
    """A finished crawl: exit status, log, final stats and the pages it stored."""

    returncode: int
    log: str
    pages: dict[str, StoredPage]

    def stat(self, key: str) -> int:
        """An integer counter from the final stats dump (0 when absent)."""
        match = re.search(rf"'{re.escape(key)}': (\d+)", self.log)
        return int(match.group(1)) if match else 0

    def pages_of(self, server: SiteServer) -> dict[str, StoredPage]:
        """The stored pages of one site, by path."""
        return {
            url.removeprefix(server.base_url): page
            for url, page in self.pages.items()
            if url.startswith(server.base_url + "/")
        }


def run_crawl(
    spider: str, arguments: dict[str, str], workdir: Path, settings: dict[str, str] | None = None
) -> CrawlOutcome:
    """Run `scrapy crawl` into a fresh SQLite database and read back its pages."""
    database_url = f"sqlite:///{workdir / (spider + '.db')}"
    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in arguments.items():
        command += ["-a", f"{name}={value}"]
    command += ["-s", f"NEWSCRAWL_DATABASE_URL={database_url}"]
    for name, value in {**CRAWL_SETTINGS, **(settings or {})}.items():
        command += ["-s", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=CRAWL_TIMEOUT_SECONDS, check=False,
    )
    return CrawlOutcome(done.returncode, done.stdout + done.stderr, read_pages(database_url))


def read_pages(database_url: str) -> dict[str, StoredPage]:
    """Every stored page, by URL."""
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            return {
                page.url: StoredPage(
                    page.title, as_utc(page.published_at), tuple(page.authors or ()),
                    page.feed_url,
                )
                for page in session.scalars(select(Page))
            }
    finally:
        engine.dispose()


def as_utc(value: datetime | None) -> datetime | None:
    """Read naive database datetimes as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def describe(outcome: CrawlOutcome, **extra: Any) -> str:
    """A readable summary for assertion messages."""
    return f"pages={sorted(outcome.pages)} {extra} log tail:\n{outcome.log[-3000:]}"
