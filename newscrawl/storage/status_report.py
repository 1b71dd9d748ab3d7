"""A read-only summary of the store for `newscrawl status`: feeds, pending, articles, runs."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from newscrawl.stats_keys import SQL_STORAGE_ARTICLES_STORED
from newscrawl.storage.crawl_run_repository import judge_run_state
from newscrawl.storage.feed_repository import FeedRepository, FeedState
from newscrawl.storage.models import Article, CrawlRun
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import PendingGroup


@dataclass(frozen=True)
class SiteArticles:
    """How many articles a site has, and when the newest was extracted."""

    site: str
    articles: int
    last_extracted_at: datetime | None


@dataclass(frozen=True)
class RunSummary:
    """One crawl run, with the counters an operator looks at first."""

    id: int
    spider: str
    worker: str
    started_at: datetime
    finished_at: datetime | None
    finish_reason: str | None
    pages_fetched: int | None
    articles_stored: int | None
    # "finished", "running", or "interrupted" for a run that died without saying so.
    state: str


@dataclass(frozen=True)
class StatusReport:
    """Everything `newscrawl status` prints."""

    feeds: list[FeedState]
    pending_groups: list[PendingGroup]
    sites: list[SiteArticles]
    runs: list[RunSummary]


def read_status_report(
    engine: Engine,
    *,
    run_limit: int = 5,
    now: datetime | None = None,
    host: str | None = None,
) -> StatusReport:
    """Read the summary in a few queries; nothing is written (a killed run is shown as
    interrupted here; the next crawl marks it so)."""
    now = now or datetime.now(UTC)
    host = host or socket.gethostname()
    statement = (
        select(Article.site, func.count(Article.id), func.max(Article.extracted_at))
        .group_by(Article.site)
        .order_by(func.count(Article.id).desc(), Article.site)
    )
    with Session(engine) as session:
        sites = [
            SiteArticles(site, int(count), last)
            for site, count, last in session.execute(statement)
        ]
        runs = [
            _to_run_summary(run, now=now, host=host)
            for run in session.scalars(
                select(CrawlRun).order_by(CrawlRun.id.desc()).limit(run_limit)
            )
        ]
    return StatusReport(
        feeds=FeedRepository(engine).list_feeds(),
        pending_groups=PageRepository(engine).list_pending_groups(),
        sites=sites,
        runs=runs,
    )


def _to_run_summary(run: CrawlRun, *, now: datetime, host: str) -> RunSummary:
    stats = run.stats or {}
    fetched = stats.get("response_received_count")
    stored = stats.get(SQL_STORAGE_ARTICLES_STORED)
    return RunSummary(
        id=run.id, spider=run.spider, worker=run.worker, started_at=run.started_at,
        finished_at=run.finished_at, finish_reason=run.finish_reason,
        pages_fetched=int(fetched) if isinstance(fetched, int) else None,
        articles_stored=int(stored) if isinstance(stored, int) else None,
        state=judge_run_state(
            worker=run.worker, started_at=run.started_at, heartbeat_at=run.heartbeat_at,
            finished_at=run.finished_at, now=now, host=host,
        ),
    )
