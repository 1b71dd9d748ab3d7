"""Claims on pending pages, so that workers sharing one database never extract a page twice.

On PostgreSQL a claim is a session-level advisory lock per page, taken with
`pg_try_advisory_lock` on one connection the worker keeps open: a page another worker holds
is skipped (the SKIP LOCKED of advisory locks), and a worker that dies loses its connection
and with it every claim, so its pages become claimable again and none is lost. No schema
change is needed. SQLite is single-machine: one crawl process at a time, whose in-memory
bookkeeping already suffices, so its claims always succeed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection
from typing import Protocol

from sqlalchemy import Connection, Engine, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.types import Integer

logger = logging.getLogger(__name__)

# First key of the two-key advisory locks on pages. Advisory locks are per database, not per
# schema: the schema in the key keeps crawls into separate schemas of one database apart.
PAGE_LOCK_NAMESPACE = "hashtext('newscrawl.pages/' || current_schema())"

_LOCK_PAGES = text(
    "SELECT id FROM unnest(:ids) AS claimed(id)"
    f" WHERE pg_try_advisory_lock({PAGE_LOCK_NAMESPACE}, id)"
).bindparams(bindparam("ids", type_=ARRAY(Integer)))
_STILL_PENDING = text(
    "SELECT id FROM pages WHERE id = ANY(:ids) AND status = 'pending'"
).bindparams(bindparam("ids", type_=ARRAY(Integer)))
_UNLOCK_PAGES = text(
    f"SELECT pg_advisory_unlock({PAGE_LOCK_NAMESPACE}, id) FROM unnest(:ids) AS released(id)"
).bindparams(bindparam("ids", type_=ARRAY(Integer)))


class PageClaims(Protocol):
    """Exclusive, crash-safe claims on pending pages across the workers of one database."""

    is_shared: bool

    def claim_pages(self, page_ids: Collection[int]) -> set[int]:
        """Claim what can be claimed of `page_ids` and is still pending; return those ids."""
        ...

    def release_pages(self, page_ids: Collection[int]) -> None:
        """Give up claims taken by `claim_pages`."""
        ...

    def close(self) -> None:
        """Release every claim."""
        ...


class LocalPageClaims:
    """Claims for a database only one process writes to (SQLite): always granted."""

    is_shared = False

    def claim_pages(self, page_ids: Collection[int]) -> set[int]:
        return set(page_ids)

    def release_pages(self, page_ids: Collection[int]) -> None:
        return None

    def close(self) -> None:
        return None


class AdvisoryPageClaims:
    """Claims as PostgreSQL session-level advisory locks, held on a dedicated connection."""

    is_shared = True

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._connection: Connection | None = None
        # Called from several worker threads; one connection serves them in turn.
        self._lock = threading.Lock()

    def claim_pages(self, page_ids: Collection[int]) -> set[int]:
        ids = sorted(set(page_ids))
        if not ids:
            return set()
        with self._lock:
            connection = self._require_connection()
            try:
                locked = list(connection.execute(_LOCK_PAGES, {"ids": ids}).scalars())
                # Re-read the status under the lock: the page may have been extracted by the
                # worker that held it a moment ago.
                pending = set(connection.execute(_STILL_PENDING, {"ids": locked}).scalars())
                stale = [page_id for page_id in locked if page_id not in pending]
                if stale:
                    connection.execute(_UNLOCK_PAGES, {"ids": stale})
            except Exception:
                self._drop_connection()
                raise
        return pending

    def release_pages(self, page_ids: Collection[int]) -> None:
        ids = sorted(set(page_ids))
        if not ids:
            return
        with self._lock:
            if self._connection is None:
                # The connection (and with it every claim) was lost already.
                return
            try:
                self._connection.execute(_UNLOCK_PAGES, {"ids": ids})
            except Exception:
                self._drop_connection()
                raise

    def close(self) -> None:
        with self._lock:
            self._drop_connection()

    def _require_connection(self) -> Connection:
        if self._connection is None:
            connection = self.engine.connect()
            self._connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        return self._connection

    def _drop_connection(self) -> None:
        if self._connection is None:
            return
        try:
            # Invalidate, not close: a pooled connection would keep its session locks.
            self._connection.invalidate()
            self._connection.close()
        except Exception:
            logger.debug("Ignoring an error while closing the claims connection", exc_info=True)
        self._connection = None


def open_page_claims(engine: Engine) -> PageClaims:
    """Advisory-lock claims on PostgreSQL, always-granted claims elsewhere."""
    if engine.dialect.name == "postgresql":
        return AdvisoryPageClaims(engine)
    return LocalPageClaims()
