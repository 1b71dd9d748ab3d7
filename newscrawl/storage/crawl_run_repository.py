"""One row per crawl process in `crawl_runs`, and telling a running crawl from a killed one."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session

from newscrawl.storage.models import CrawlRun

# A running crawl writes its heartbeat this often; one silent for STALE_AFTER is taken for
# dead. Generous, so that a reactor busy for a few minutes is not declared dead.
HEARTBEAT_INTERVAL = timedelta(seconds=60)
STALE_AFTER = timedelta(minutes=10)
INTERRUPTED = "interrupted"
RUNNING = "running"
FINISHED = "finished"


def build_worker_name(host: str, pid: int) -> str:
    """How a run names the process that runs it: `host:pid`."""
    return f"{host}:{pid}"


def is_process_alive(pid: int) -> bool:
    """True when a process with this id exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except OSError:
        return False
    return True


def judge_run_state(
    *,
    worker: str,
    started_at: datetime,
    heartbeat_at: datetime | None,
    finished_at: datetime | None,
    now: datetime,
    host: str,
) -> str:
    """FINISHED, RUNNING or INTERRUPTED: an unfinished run is interrupted when its process
    is gone (a run of this host) or its last sign of life is older than STALE_AFTER."""
    if finished_at is not None:
        return FINISHED
    run_host, _, pid = worker.rpartition(":")
    if run_host == host and pid.isdigit() and not is_process_alive(int(pid)):
        return INTERRUPTED
    last_alive = heartbeat_at or started_at
    return INTERRUPTED if now - last_alive > STALE_AFTER else RUNNING


class CrawlRunRepository:
    """Records when each crawl ran and the stats it finished with."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def start_run(self, *, spider: str, worker: str, started_at: datetime) -> int:
        """Insert a running crawl and return its id."""
        with Session(self.engine) as session, session.begin():
            run = CrawlRun(
                spider=spider, worker=worker, started_at=started_at, heartbeat_at=started_at
            )
            session.add(run)
            session.flush()
            return run.id

    def record_heartbeat(self, run_id: int, *, now: datetime) -> None:
        """Say that the run is still alive."""
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(CrawlRun)
                .where(CrawlRun.id == run_id, CrawlRun.finished_at.is_(None))
                .values(heartbeat_at=now)
            )

    def finish_run(
        self, run_id: int, *, finished_at: datetime, reason: str, stats: dict[str, Any]
    ) -> None:
        """Close a crawl with its finish reason and final stats."""
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(CrawlRun)
                .where(CrawlRun.id == run_id)
                .values(finished_at=finished_at, finish_reason=reason, stats=stats)
            )

    def mark_interrupted_runs(self, *, now: datetime, host: str) -> list[int]:
        """Close every unfinished run that is judged interrupted, as finished when it was last
        seen alive with the reason INTERRUPTED; return their ids."""
        marked: list[int] = []
        with Session(self.engine) as session, session.begin():
            for run in session.scalars(
                select(CrawlRun).where(CrawlRun.finished_at.is_(None)).with_for_update()
            ):
                state = judge_run_state(
                    worker=run.worker, started_at=run.started_at, heartbeat_at=run.heartbeat_at,
                    finished_at=run.finished_at, now=now, host=host,
                )
                if state == INTERRUPTED:
                    run.finished_at = run.heartbeat_at or run.started_at
                    run.finish_reason = INTERRUPTED
                    marked.append(run.id)
        return marked
