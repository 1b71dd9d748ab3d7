"""Row writes a transaction keeps until its commit: the shared site rows and the pages closed.

On PostgreSQL a batch that updates a site row holds that row's lock until it commits, and
every concurrent batch storing a page of the site waits for it: upserting the site with the
batch's first page serialised the batches. Written just before the commit, the lock is held
for the commit only. The pages an article closes go in the same place, one executemany (a
psycopg pipeline) instead of one round trip per article. The rows end as they would have:
each keeps the values and timestamp its write asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Table, bindparam, event, update
from sqlalchemy.orm import Session, SessionTransaction

from newscrawl.storage.models import Page, Site
from newscrawl.storage.upsert import prepare_upsert

# session.info key: the DeferredWrites of the session's current transaction.
DEFERRED_WRITES_KEY = "newscrawl.deferred_writes"


@dataclass
class DeferredWrites:
    """What one transaction has written or will write at its commit."""

    transaction: SessionTransaction
    # (table, key) rows written already by this transaction (e.g. a feed inserted).
    written: set[tuple[str, str]] = field(default_factory=set)
    # Site name -> the time its page was stored (first_seen_at / last_seen_at of the upsert).
    sites: dict[str, datetime] = field(default_factory=dict)
    # Page id -> the time its article was stored (updated_at of the page closed).
    closed_pages: dict[int, datetime] = field(default_factory=dict)


SITE_UPSERT = prepare_upsert(
    Site.__table__,  # type: ignore[arg-type]
    conflict_columns=["name"],
    update_columns=["last_seen_at"],
)
PAGES: Table = Page.__table__  # type: ignore[assignment]
# Built once: building an UPDATE per article cost SQLAlchemy more than running it.
CLOSE_PAGE = (
    update(PAGES)
    .where(PAGES.c.id == bindparam("page_id"))
    .values(status="extracted", error=None, updated_at=bindparam("now"))
)


def deferred_writes(session: Session) -> DeferredWrites:
    """The deferred writes of the session's current transaction (begun if none has)."""
    session.connection()  # begins the transaction, if none has begun yet
    transaction = session.get_transaction()
    assert transaction is not None
    kept = session.info.get(DEFERRED_WRITES_KEY)
    if not isinstance(kept, DeferredWrites) or kept.transaction is not transaction:
        # A new transaction: what an earlier one deferred was committed or rolled back with it.
        kept = session.info[DEFERRED_WRITES_KEY] = DeferredWrites(transaction)
    return kept


def flush_deferred_writes(session: Session) -> None:
    """Write every deferred row now (the commit does), in key order, so that concurrent
    batches take the row locks in one order."""
    kept = _current(session)
    if kept is None:
        return
    flush_closed_pages(session)
    if kept.sites:
        rows = [
            {"name": name, "first_seen_at": now, "last_seen_at": now}
            for name, now in sorted(kept.sites.items())
        ]
        kept.sites.clear()
        SITE_UPSERT.execute_many(session, rows)


def flush_closed_pages(session: Session) -> None:
    """Close the deferred pages now: before a read of this transaction that counts them."""
    kept = _current(session)
    if kept is None or not kept.closed_pages:
        return
    rows = [{"page_id": page_id, "now": now} for page_id, now in sorted(kept.closed_pages.items())]
    kept.closed_pages.clear()
    # executemany: psycopg sends the updates in one pipeline, not one round trip each.
    session.connection().execute(CLOSE_PAGE, rows)


def _current(session: Session) -> DeferredWrites | None:
    kept = session.info.get(DEFERRED_WRITES_KEY)
    if not isinstance(kept, DeferredWrites) or kept.transaction is not session.get_transaction():
        return None
    return kept


@event.listens_for(Session, "before_commit")
def _write_before_commit(session: Session) -> None:
    flush_deferred_writes(session)
