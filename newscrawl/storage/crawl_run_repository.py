"""One row per crawl process in `crawl_runs`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from newscrawl.storage.models import CrawlRun


class CrawlRunRepository:
    """Records when each crawl ran and the stats it finished with."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def start_run(self, *, spider: str, worker: str, started_at: datetime) -> int:
        """Insert a running crawl and return its id."""
        with Session(self.engine) as session, session.begin():
            run = CrawlRun(spider=spider, worker=worker, started_at=started_at)
            session.add(run)
            session.flush()
            return run.id

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
