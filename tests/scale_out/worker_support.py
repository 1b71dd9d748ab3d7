"""Worker processes of one shared crawl: a fresh PostgreSQL database and a Redis key prefix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
import redis

from tests.e2e.crawl_support import REPO_ROOT, CrawlResult

POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"
WORKER_TIMEOUT_SECONDS = 150
WORKER_AGENT_PREFIX = "newscrawl-test-worker/"


@dataclass(frozen=True)
class SharedCrawl:
    """Where the workers of one test crawl meet: their database and their Redis keys."""

    database_url: str
    redis_prefix: str

    def worker_settings(self) -> dict[str, str]:
        return {
            "NEWSCRAWL_DATABASE_URL": self.database_url,
            "NEWSCRAWL_REDIS_URL": REDIS_URL,
            "SCHEDULER_QUEUE_KEY": f"{self.redis_prefix}:%(spider)s:requests",
            "SCHEDULER_DUPEFILTER_KEY": f"{self.redis_prefix}:%(spider)s:dupefilter",
        }


@contextmanager
def open_shared_crawl() -> Iterator[SharedCrawl]:
    """Yield a new PostgreSQL database and Redis key prefix; both are removed afterwards."""
    token = uuid.uuid4().hex[:12]
    name = f"newscrawl_scale_{token}"
    prefix = f"newscrawl-test:{token}"
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    client = redis.Redis.from_url(REDIS_URL)
    try:
        yield SharedCrawl(f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}", prefix)
    finally:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def start_workers(
    count: int, spider: str, arguments: dict[str, str], settings: dict[str, str]
) -> list[subprocess.Popen[str]]:
    """Start `count` `scrapy crawl` processes side by side."""
    command = [sys.executable, "-m", "scrapy", "crawl", spider]
    for name, value in arguments.items():
        command += ["-a", f"{name}={value}"]
    base_settings = {
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": "False",
        "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
    }
    for name, value in {**base_settings, **settings}.items():
        command += ["-s", f"{name}={value}"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return [
        subprocess.Popen(
            # The test servers can tell the workers apart by their user agent.
            [*command, "-s", f"USER_AGENT={WORKER_AGENT_PREFIX}{index}"],
            cwd=REPO_ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for index in range(count)
    ]


def wait_for_workers(
    processes: Sequence[subprocess.Popen[str]], *, interrupt: bool = False
) -> list[CrawlResult]:
    """Wait for the workers (after SIGINT, as Ctrl-C, when `interrupt`); kill any left over."""
    if interrupt:
        for process in processes:
            process.send_signal(signal.SIGINT)
    results = []
    try:
        for process in processes:
            log, _ = process.communicate(timeout=WORKER_TIMEOUT_SECONDS)
            results.append(CrawlResult(process.returncode, log))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    return results


def run_workers(
    count: int, spider: str, arguments: dict[str, str], settings: dict[str, str]
) -> list[CrawlResult]:
    """Run `count` `scrapy crawl` processes side by side and wait for all of them."""
    return wait_for_workers(start_workers(count, spider, arguments, settings))
