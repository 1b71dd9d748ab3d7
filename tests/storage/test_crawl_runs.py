"""Killed crawls are shown as interrupted by `status` and marked so by the next crawl."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from scrapy import Spider
from scrapy.utils.test import get_crawler
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from newscrawl.extensions.crawl_runs import CrawlRunsExtension
from newscrawl.storage.crawl_run_repository import (
    INTERRUPTED,
    STALE_AFTER,
    CrawlRunRepository,
    build_worker_name,
    judge_run_state,
)
from newscrawl.storage.models import CrawlRun
from newscrawl.storage.status_report import read_status_report

HOST = "crawler-1"
NOW = datetime(2026, 11, 26, 20, tzinfo=UTC)


def find_dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def judge(worker: str, heartbeat_at: datetime | None, finished_at: datetime | None = None) -> str:
    return judge_run_state(
        worker=worker, started_at=NOW - timedelta(hours=2), heartbeat_at=heartbeat_at,
        finished_at=finished_at, now=NOW, host=HOST,
    )


def test_judge_run_state() -> None:
    alive = build_worker_name(HOST, os.getpid())
    dead = build_worker_name(HOST, find_dead_pid())
    fresh, stale = NOW - timedelta(minutes=1), NOW - STALE_AFTER - timedelta(seconds=1)
    assert judge(alive, fresh, finished_at=NOW) == "finished"
    assert judge(alive, fresh) == "running"
    assert judge(dead, fresh) == INTERRUPTED  # its process is gone, heartbeat or not
    assert judge("elsewhere:1", fresh) == "running"  # another host: only the heartbeat tells
    assert judge("elsewhere:1", stale) == INTERRUPTED
    assert judge("elsewhere:1", None) == INTERRUPTED  # no heartbeat: started two hours ago
    assert judge(alive, stale) == INTERRUPTED  # alive pid, silent: a reused pid, or a hang


def add_runs(engine: Engine) -> dict[str, int]:
    runs = CrawlRunRepository(engine)
    started = NOW - timedelta(hours=1)
    ids = {
        "dead": runs.start_run(
            spider="rss", worker=build_worker_name(HOST, find_dead_pid()), started_at=started
        ),
        "alive": runs.start_run(
            spider="rss", worker=build_worker_name(HOST, os.getpid()), started_at=started
        ),
        "remote_stale": runs.start_run(spider="rss", worker="other:7", started_at=started),
        "remote_fresh": runs.start_run(spider="rss", worker="other:8", started_at=started),
    }
    for name in ("alive", "remote_fresh"):
        runs.record_heartbeat(ids[name], now=NOW - timedelta(minutes=1))
    done = runs.start_run(spider="rss", worker="other:9", started_at=started)
    runs.finish_run(done, finished_at=NOW, reason="finished", stats={})
    ids["done"] = done
    return ids


def read_runs(engine: Engine) -> dict[int, tuple[datetime | None, str | None]]:
    with Session(engine) as session:
        return {
            run.id: (run.finished_at, run.finish_reason)
            for run in session.scalars(select(CrawlRun))
        }


def test_status_shows_killed_runs_as_interrupted_without_writing(engine: Engine) -> None:
    ids = add_runs(engine)
    before = read_runs(engine)
    report = read_status_report(engine, run_limit=10, now=NOW, host=HOST)
    states = {run.id: run.state for run in report.runs}
    assert states == {
        ids["dead"]: INTERRUPTED,
        ids["alive"]: "running",
        ids["remote_stale"]: INTERRUPTED,
        ids["remote_fresh"]: "running",
        ids["done"]: "finished",
    }
    assert read_runs(engine) == before


def test_marking_closes_only_the_interrupted_runs(engine: Engine) -> None:
    ids = add_runs(engine)
    marked = CrawlRunRepository(engine).mark_interrupted_runs(now=NOW, host=HOST)
    assert sorted(marked) == sorted([ids["dead"], ids["remote_stale"]])
    runs = read_runs(engine)
    # Closed when last seen alive: the start here, as neither wrote a later heartbeat.
    assert runs[ids["dead"]] == (NOW - timedelta(hours=1), INTERRUPTED)
    assert runs[ids["remote_stale"]] == (NOW - timedelta(hours=1), INTERRUPTED)
    assert runs[ids["alive"]] == (None, None)
    assert runs[ids["remote_fresh"]] == (None, None)
    assert runs[ids["done"]] == (NOW, "finished")


def test_a_starting_crawl_marks_a_killed_run_interrupted(engine: Engine) -> None:
    url = engine.url.render_as_string(hide_password=False)
    killed = CrawlRunRepository(engine).start_run(
        spider="rss",
        worker=build_worker_name(socket.gethostname(), find_dead_pid()),
        started_at=datetime.now(UTC) - timedelta(minutes=1),
    )
    crawler = get_crawler(Spider, settings_dict={"NEWSCRAWL_DATABASE_URL": url})
    extension = CrawlRunsExtension.from_crawler(crawler)
    spider = Spider(name="rss")

    async def crawl() -> None:
        await extension.spider_opened(spider)
        await extension.spider_closed(spider, "finished")

    asyncio.run(crawl())
    runs = read_runs(engine)
    assert runs[killed][1] == INTERRUPTED
    assert extension.run_id is not None and runs[extension.run_id][1] == "finished"
