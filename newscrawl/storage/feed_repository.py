"""Feeds and their polling state: conditional-GET validators, schedule, failures, dead marks."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, func, select, union, update
from sqlalchemy.orm import Session

from newscrawl.storage.models import Article, Feed, Page
from newscrawl.storage.upsert import build_upsert

# Rows per IN (...) query: well below SQLite's bound-parameter limit.
URL_BATCH = 500


@dataclass(frozen=True)
class FeedState:
    """What the database knows about polling one feed."""

    url: str
    site: str
    category: str | None
    etag: str | None
    last_modified: str | None
    last_polled_at: datetime | None
    next_poll_at: datetime | None
    interval_seconds: float | None
    failure_count: int
    is_dead: bool
    last_status: int | None
    last_error: str | None
    entries_seen: int
    entries_new: int
    polls: int
    not_modified: int


def _to_state(row: Feed) -> FeedState:
    return FeedState(
        url=row.url,
        site=row.site,
        category=row.category,
        etag=row.etag,
        last_modified=row.last_modified,
        last_polled_at=row.last_polled_at,
        next_poll_at=row.next_poll_at,
        interval_seconds=row.interval_seconds,
        failure_count=row.failure_count,
        is_dead=row.is_dead,
        last_status=row.last_status,
        last_error=row.last_error,
        entries_seen=row.entries_seen,
        entries_new=row.entries_new,
        polls=row.polls,
        not_modified=row.not_modified,
    )


class FeedRepository:
    """Reads and records the polling state of feeds, and which article URLs are known."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def register_feed(self, url: str, *, site: str, category: str | None) -> None:
        """Add a feed if it is new; an existing feed keeps its state."""
        with Session(self.engine) as session, session.begin():
            session.execute(
                build_upsert(
                    session.get_bind().dialect.name,
                    Feed.__table__,  # type: ignore[arg-type]
                    {"url": url, "site": site, "category": category,
                     "first_seen_at": datetime.now(UTC)},
                    conflict_columns=["url"],
                    update_columns=[],
                )
            )

    def load_feed(self, url: str) -> FeedState | None:
        """The state of one feed, if it is known."""
        with Session(self.engine) as session:
            row = session.scalars(select(Feed).where(Feed.url == url)).one_or_none()
            return None if row is None else _to_state(row)

    def list_feeds(self) -> list[FeedState]:
        """Every known feed, by URL."""
        with Session(self.engine) as session:
            return [_to_state(row) for row in session.scalars(select(Feed).order_by(Feed.url))]

    def claim_due_feeds(
        self, urls: Collection[str], *, now: datetime, lease: timedelta
    ) -> list[str]:
        """Among `urls`, the live feeds due by `now`, pushed `lease` ahead so no other claims them.

        One UPDATE ... RETURNING: atomic on SQLite and, under PostgreSQL's row locks, a row
        a concurrent worker just claimed no longer matches, so each due feed goes to one worker.
        """
        claimed: list[str] = []
        with Session(self.engine) as session, session.begin():
            for batch in _batches(list(urls)):
                statement = (
                    update(Feed)
                    .where(
                        Feed.url.in_(batch),
                        Feed.is_dead.is_(False),
                        (Feed.next_poll_at.is_(None)) | (Feed.next_poll_at <= now),
                    )
                    .values(next_poll_at=now + lease)
                    .returning(Feed.url)
                )
                claimed.extend(session.scalars(statement))
        return sorted(claimed)

    def count_due_feeds(self, now: datetime) -> int:
        """Live feeds with a schedule whose next poll is due."""
        statement = select(func.count(Feed.id)).where(
            Feed.is_dead.is_(False), Feed.next_poll_at.is_not(None), Feed.next_poll_at <= now
        )
        with Session(self.engine) as session:
            return int(session.scalar(statement) or 0)

    def record_fetched(
        self,
        url: str,
        *,
        polled_at: datetime,
        next_poll_at: datetime | None,
        interval_seconds: float,
        status: int,
        etag: str | None,
        last_modified: str | None,
        entries: int,
        new_entries: int,
    ) -> None:
        """Record a successful poll that returned the feed; failures start over.

        `next_poll_at` None: the feed has no schedule of its own (a child sitemap).
        """
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(Feed)
                .where(Feed.url == url)
                .values(
                    etag=etag, last_modified=last_modified, last_polled_at=polled_at,
                    next_poll_at=next_poll_at, interval_seconds=interval_seconds,
                    last_status=status, last_error=None, failure_count=0, is_dead=False,
                    entries_seen=Feed.entries_seen + entries,
                    entries_new=Feed.entries_new + new_entries,
                    polls=Feed.polls + 1,
                )
            )

    def record_not_modified(
        self,
        url: str,
        *,
        polled_at: datetime,
        next_poll_at: datetime | None,
        interval_seconds: float,
    ) -> None:
        """Record a 304: the feed is alive and unchanged."""
        with Session(self.engine) as session, session.begin():
            session.execute(
                update(Feed)
                .where(Feed.url == url)
                .values(
                    last_polled_at=polled_at, next_poll_at=next_poll_at,
                    interval_seconds=interval_seconds, last_status=304, last_error=None,
                    failure_count=0, polls=Feed.polls + 1, not_modified=Feed.not_modified + 1,
                )
            )

    def record_failure(
        self,
        url: str,
        *,
        polled_at: datetime,
        error: str,
        status: int | None,
        max_failures: int,
        backoff: timedelta,
    ) -> FeedState | None:
        """Count a failed poll; the feed is polled again after `backoff`, or marked dead."""
        with Session(self.engine) as session, session.begin():
            row = session.scalars(select(Feed).where(Feed.url == url)).one_or_none()
            if row is None:
                return None
            row.failure_count += 1
            row.last_polled_at = polled_at
            row.last_status = status
            row.last_error = error[:2000]
            row.polls += 1
            row.is_dead = max_failures > 0 and row.failure_count >= max_failures
            row.next_poll_at = None if row.is_dead else polled_at + backoff
            session.flush()
            return _to_state(row)

    def find_known_urls(self, urls: Sequence[str]) -> set[str]:
        """The URLs among `urls` already fetched (a page) or extracted (an article)."""
        known: set[str] = set()
        with Session(self.engine) as session:
            for batch in _batches(list(dict.fromkeys(urls))):
                statement = union(
                    select(Page.url).where(Page.url.in_(batch)),
                    select(Article.url).where(Article.url.in_(batch)),
                )
                known.update(session.scalars(statement))
        return known


def _batches(values: list[str]) -> list[list[str]]:
    return [values[start : start + URL_BATCH] for start in range(0, len(values), URL_BATCH)]
