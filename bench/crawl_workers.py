"""Several crawl workers sharing one Redis frontier and one PostgreSQL database (--workers).

`python -m bench.crawl_speed --workers 1,2,4 --stores "" --scales ""` runs, for each N, N
`scrapy crawl` processes side by side on the served network, as docs/scale-out.md sets them up:
a fresh PostgreSQL database and fresh Redis keys (queue and dupefilter, scrapy-redis) shared by
all N, then a bare Scrapy crawl with N times one worker's concurrency. It reports:

- pages/s in total (stored articles over the span from the first worker's first response to the
  last worker's last item, on the machine-wide monotonic clock) and per worker (its own stored
  articles over its own first-response-to-last-item time);
- the ratio of the total to the bare crawl's pages/s (the same first-response-to-last-item
  measure);
- duplicate fetches (article pages the network served more than once, from its request log)
  and duplicate rows (article URLs stored more than once): both must be 0;
- Redis `used_memory` (INFO memory) before the workers start and after they end, and the bytes
  of the crawl's own keys (MEMORY USAGE), with the dupefilter's fingerprint count.

With more workers than cores, the figure measures contention for the cores, not scaling.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import redis
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import make_url

from bench.crawl_speed import (
    REPO_ROOT,
    SPIDERS,
    CrawlRun,
    NetworkProcess,
    build_crawl_command,
    build_environment,
    read_stats,
    read_tree_rss,
    run_crawl,
)
from newscrawl import settings as project_settings
from newscrawl.stats_keys import (
    PAGE_FETCHED_KEYS,
    PEAK_MEMORY_RSS_BYTES,
    SQL_STORAGE_ARTICLES_STORED,
)
from newscrawl.storage.models import Article, Page

REDIS_URL = "redis://127.0.0.1:6379/0"
# An idle worker waits this long for the others to refill the queue (docs/scale-out.md); the
# figures leave it out (they end at each worker's last item). With 3 s, one of 4 workers on
# the loaded machine found the queue still empty at start (the others were fetching the
# feeds) and closed without a page.
IDLE_CLOSE_SECONDS = 10
WORKER_AGENT_PREFIX = "newscrawl-bench-worker/"


@dataclass
class WorkerFigures:
    """One worker process of a shared crawl."""

    index: int
    fetched: int
    stored: int
    active_seconds: float
    pages_per_second: float
    peak_rss_mb: float | None
    # The worker and its extraction pool, sampled every half second.
    peak_tree_rss_mb: float
    returncode: int
    log: str


@dataclass
class WorkersRun:
    """N workers crawling one network into one database through one Redis frontier."""

    mode: str
    workers: int
    cpu_count: int | None
    network_pages: int
    served: int
    duplicate_fetches: int
    duplicate_fetched_urls: int
    stored: int
    duplicate_rows: int
    pending_pages: int
    failed_pages: int
    span_seconds: float
    # CPU time of the workers and their extraction pools (user + system), per stored page.
    worker_cpu_ms_per_page: float
    # That CPU time over the span: how many cores the workers kept busy on average.
    worker_cores_busy: float
    # The database's work per stored page (pg_stat_database of the crawl's own database).
    transactions_per_page: float
    rows_written_per_page: float
    # pg_database_size after the crawl over stored pages (an empty schema included).
    database_bytes_per_page: int
    pages_per_second: float
    pages_per_second_per_worker: float
    bare_concurrency: int
    bare_pages_per_second: float | None
    # CPU time of the bare crawl process per fetched page: what Scrapy alone costs.
    bare_cpu_ms_per_page: float | None
    ratio_to_bare: float | None
    redis_used_memory_before: int
    redis_used_memory_after: int
    redis_crawl_keys_bytes: int
    dupefilter_fingerprints: int
    load_average: tuple[float, float, float]
    lost: int
    per_worker: list[WorkerFigures] = field(default_factory=list)

    @property
    def contention_only(self) -> bool:
        """More workers than cores: the figure measures contention, not scaling."""
        return self.cpu_count is not None and self.workers > self.cpu_count

    @property
    def failed(self) -> bool:
        """A lost page, a duplicate or a worker that did not end cleanly."""
        return bool(
            self.lost
            or self.duplicate_fetches
            or self.duplicate_rows
            or any(worker.returncode for worker in self.per_worker)
        )


@contextmanager
def open_worker_database(postgres_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database for one shared crawl, dropped afterwards.

    Its own database rather than a schema: the workers' page claims are advisory locks, which
    are database-wide, and other crawls may run in the admin database at the same time.
    """
    name = f"newscrawl_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        yield make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@contextmanager
def open_redis_keys(redis_url: str) -> Iterator[tuple[redis.Redis, str]]:
    """A Redis client and a fresh key prefix; the prefix's keys are deleted afterwards."""
    client = redis.Redis.from_url(redis_url)
    prefix = f"newscrawl-bench:{uuid.uuid4().hex[:12]}"
    try:
        yield client, prefix
    finally:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()


def read_used_memory(client: redis.Redis) -> int:
    """Redis's `used_memory` (INFO memory), in bytes."""
    info: dict[str, Any] = client.info("memory")
    return int(info["used_memory"])


def measure_crawl_keys(client: redis.Redis, prefix: str) -> tuple[int, int]:
    """Bytes held by the crawl's keys (MEMORY USAGE) and the dupefilter's fingerprint count."""
    total = fingerprints = 0
    for key in client.scan_iter(match=f"{prefix}:*"):
        total += int(client.memory_usage(key, samples=0) or 0)
        if key.endswith(b":dupefilter"):
            fingerprints += int(client.scard(key))
    return total, fingerprints


def read_children_cpu() -> float:
    """CPU seconds (user + system) of the waited-for children of this process, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def read_database_work(database_url: str) -> tuple[int, int, int]:
    """Committed transactions, rows inserted, updated or deleted, and the database's bytes."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            # The statistics are flushed when a backend ends: read them fresh.
            connection.exec_driver_sql("SELECT pg_stat_clear_snapshot()")
            row = connection.exec_driver_sql(
                "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted, "
                "pg_database_size(datname) "
                "FROM pg_stat_database WHERE datname = current_database()"
            ).one()
    finally:
        engine.dispose()
    return int(row[0]), int(row[1]), int(row[2])


def count_rows(database_url: str) -> tuple[int, int, int, int]:
    """Stored articles, article URLs stored more than once, pending and failed pages."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            stored = connection.scalar(select(func.count()).select_from(Article)) or 0
            repeated = (
                select(Article.url).group_by(Article.url).having(func.count() > 1).subquery()
            )
            duplicates = connection.scalar(select(func.count()).select_from(repeated)) or 0
            by_status = dict(
                connection.execute(select(Page.status, func.count()).group_by(Page.status)).all()
            )
    finally:
        engine.dispose()
    return (
        int(stored),
        int(duplicates),
        int(by_status.get("pending", 0)),
        int(by_status.get("failed", 0)),
    )


def build_worker_commands(
    count: int,
    mode: str,
    network: NetworkProcess,
    database_url: str,
    redis_url: str,
    prefix: str,
    work_dir: Path,
    overrides: Sequence[str],
) -> list[tuple[list[str], Path]]:
    """One `scrapy crawl` command and stats file per worker, sharing the store and frontier."""
    shared = [
        f"NEWSCRAWL_REDIS_URL={redis_url}",
        f"SCHEDULER_QUEUE_KEY={prefix}:%(spider)s:requests",
        f"SCHEDULER_DUPEFILTER_KEY={prefix}:%(spider)s:dupefilter",
        f"NEWSCRAWL_FRONTIER_IDLE_CLOSE={IDLE_CLOSE_SECONDS}",
    ]
    commands = []
    for index in range(count):
        stats_file = work_dir / f"stats-{index}.json"
        worker = [*overrides, *shared, f"USER_AGENT={WORKER_AGENT_PREFIX}{index}"]
        command = build_crawl_command(
            mode, "postgresql", network, database_url, work_dir, stats_file, worker
        )
        commands.append((command, stats_file))
    return commands


def run_workers(
    count: int, mode: str, network: NetworkProcess, args: argparse.Namespace
) -> WorkersRun:
    """Run `count` workers side by side on a fresh database and Redis prefix; collect figures."""
    out_dir: Path = args.out_dir
    work_dir = Path(tempfile.mkdtemp(prefix="newscrawl-crawl-workers-"))
    spider = SPIDERS[mode]
    label = f"{mode}-workers{count}-{network.articles}-{uuid.uuid4().hex[:6]}"
    with (
        open_worker_database(args.postgres_url) as database_url,
        open_redis_keys(args.redis_url) as (client, prefix),
    ):
        commands = build_worker_commands(
            count, mode, network, database_url, args.redis_url, prefix, work_dir, args.setting
        )
        used_before = read_used_memory(client)
        cpu_before = read_children_cpu()
        network.reset()
        processes = []
        logs = []
        for index, (command, _) in enumerate(commands):
            log_path = out_dir / f"{label}-worker{index}.log"
            logs.append(log_path)
            with log_path.open("wb") as log:
                processes.append(
                    subprocess.Popen(
                        command, cwd=REPO_ROOT, env=build_environment(), stdout=log, stderr=log
                    )
                )
        peaks = watch_processes(processes)
        cpu_seconds = read_children_cpu() - cpu_before
        served = network.served()
        used_after = read_used_memory(client)
        keys_bytes, fingerprints = measure_crawl_keys(client, prefix)
        stored, duplicate_rows, pending, failed = count_rows(database_url)
        time.sleep(1)  # the workers' backends report their statistics as they end
        transactions, rows_written, database_bytes = read_database_work(database_url)
    per_worker: list[WorkerFigures] = []
    starts: list[float] = []
    ends: list[float] = []
    for index, ((_, stats_file), process) in enumerate(zip(commands, processes, strict=True)):
        stats = read_stats(stats_file)
        active = float(stats.get("bench/active_seconds", 0.0))
        worker_stored = int(stats.get(SQL_STORAGE_ARTICLES_STORED, 0))
        if "bench/first_response_monotonic" in stats:
            starts.append(float(stats["bench/first_response_monotonic"]))
            ends.append(float(stats["bench/last_item_monotonic"]))
        peak = stats.get(PEAK_MEMORY_RSS_BYTES, stats.get("bench/vmhwm_bytes"))
        per_worker.append(
            WorkerFigures(
                index=index,
                fetched=int(stats.get(PAGE_FETCHED_KEYS[spider], 0)),
                stored=worker_stored,
                active_seconds=round(active, 2),
                pages_per_second=round(worker_stored / active, 1) if active > 0 else 0.0,
                peak_rss_mb=round(peak / 1e6, 1) if peak else None,
                peak_tree_rss_mb=round(peaks[index] / 1e6, 1),
                returncode=int(process.returncode),
                log=str(logs[index]),
            )
        )
    span = max(ends) - min(starts) if starts else 0.0
    total = stored / span if span > 0 else 0.0
    return WorkersRun(
        mode=mode,
        workers=count,
        cpu_count=os.cpu_count(),
        network_pages=network.articles,
        served=served["articles"],
        duplicate_fetches=served.get("repeated", 0),
        duplicate_fetched_urls=served.get("repeated_urls", 0),
        stored=stored,
        duplicate_rows=duplicate_rows,
        pending_pages=pending,
        failed_pages=failed,
        span_seconds=round(span, 2),
        worker_cpu_ms_per_page=round(1000 * cpu_seconds / stored, 1) if stored else 0.0,
        worker_cores_busy=round(cpu_seconds / span, 2) if span > 0 else 0.0,
        transactions_per_page=round(transactions / stored, 2) if stored else 0.0,
        rows_written_per_page=round(rows_written / stored, 2) if stored else 0.0,
        database_bytes_per_page=database_bytes // stored if stored else 0,
        pages_per_second=round(total, 1),
        pages_per_second_per_worker=round(total / count, 1),
        bare_concurrency=0,
        bare_pages_per_second=None,
        bare_cpu_ms_per_page=None,
        ratio_to_bare=None,
        redis_used_memory_before=used_before,
        redis_used_memory_after=used_after,
        redis_crawl_keys_bytes=keys_bytes,
        dupefilter_fingerprints=fingerprints,
        load_average=os.getloadavg(),
        lost=network.articles - stored,
        per_worker=per_worker,
    )


def watch_processes(
    processes: Sequence[subprocess.Popen[bytes]], interval: float = 0.5
) -> list[int]:
    """Wait for every process; return the peak resident bytes of each with its descendants."""
    peaks = [0] * len(processes)
    while any(process.poll() is None for process in processes):
        for index, process in enumerate(processes):
            if process.poll() is None:
                peaks[index] = max(peaks[index], read_tree_rss(process.pid))
        time.sleep(interval)
    return peaks


def run_bare_with_concurrency(
    count: int, mode: str, network: NetworkProcess, args: argparse.Namespace
) -> tuple[int, float, CrawlRun]:
    """A bare Scrapy crawl with `count` times one worker's request concurrency.

    Returns the per-domain concurrency (every site is on 127.0.0.1: one download slot), the
    crawl's CPU seconds, and the run.
    """
    concurrency = count * project_settings.CONCURRENT_REQUESTS
    per_domain = count * project_settings.CONCURRENT_REQUESTS_PER_DOMAIN
    bare_args = argparse.Namespace(**vars(args))
    bare_args.setting = [
        *args.setting,
        f"CONCURRENT_REQUESTS={concurrency}",
        # Every site of the network is on 127.0.0.1: one download slot for all of them.
        f"CONCURRENT_REQUESTS_PER_DOMAIN={per_domain}",
    ]
    cpu_before = read_children_cpu()
    run = run_crawl(mode, "bare", network, bare_args)
    return per_domain, read_children_cpu() - cpu_before, run


def run_worker_comparison(network: NetworkProcess, args: argparse.Namespace) -> list[WorkersRun]:
    """For each N of --workers and each mode: N shared workers, then the bare crawl."""
    runs: list[WorkersRun] = []
    for _ in range(args.repeat):
        for mode in args.modes:
            for count in args.workers:
                run = run_workers(count, mode, network, args)
                concurrency, bare_cpu, bare = run_bare_with_concurrency(
                    count, mode, network, args
                )
                bare_rate = bare.active_pages_per_second
                run = replace(
                    run,
                    bare_concurrency=concurrency,
                    bare_pages_per_second=bare_rate,
                    bare_cpu_ms_per_page=round(1000 * bare_cpu / bare.fetched, 1)
                    if bare.fetched
                    else None,
                    ratio_to_bare=round(run.pages_per_second / bare_rate, 3) if bare_rate else None,
                )
                print_workers_run(run)
                runs.append(run)
                time.sleep(1)  # let the last worker's database connections close
    return runs


def print_workers_run(run: WorkersRun) -> None:
    """One line per shared crawl, then one per worker."""
    ratio = "?" if run.ratio_to_bare is None else f"{run.ratio_to_bare:.2f}x"
    note = ""
    if run.contention_only:
        note = f"  ({run.workers} workers on {run.cpu_count} cores: contention, not scaling)"
    flag = "  FAILED" if run.failed else ""
    print(
        f"{run.mode:8} {run.workers} worker(s)  pages {run.network_pages:6}  stored "
        f"{run.stored:6}  {run.pages_per_second:6.1f} pages/s "
        f"({run.pages_per_second_per_worker:.1f} per worker)  {ratio} bare "
        f"({run.bare_pages_per_second} pages/s at {run.bare_concurrency} requests per domain, "
        f"CPU {run.bare_cpu_ms_per_page} ms/page)  "
        f"duplicate fetches {run.duplicate_fetches}, rows {run.duplicate_rows}  "
        f"Redis used_memory {run.redis_used_memory_before / 1e6:.2f} -> "
        f"{run.redis_used_memory_after / 1e6:.2f} MB (crawl keys "
        f"{run.redis_crawl_keys_bytes / 1e3:.0f} kB, {run.dupefilter_fingerprints} "
        f"fingerprints)  worker CPU {run.worker_cpu_ms_per_page:.0f} ms/page "
        f"({run.worker_cores_busy:.2f} cores busy)  database "
        f"{run.transactions_per_page:.2f} commits, {run.rows_written_per_page:.1f} rows "
        f"written per page  load {run.load_average[0]:.2f}{note}{flag}",
        flush=True,
    )
    for worker in run.per_worker:
        print(
            f"    worker {worker.index}: fetched {worker.fetched}, stored {worker.stored}, "
            f"{worker.pages_per_second:.1f} pages/s over {worker.active_seconds:.1f} s, "
            f"RSS {worker.peak_rss_mb} MB ({worker.peak_tree_rss_mb} with children), "
            f"rc={worker.returncode}",
            flush=True,
        )
