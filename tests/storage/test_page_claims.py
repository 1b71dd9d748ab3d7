"""Page claims on the real databases: two workers never hold the same pending page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.page_claims import (
    PAGE_LOCK_NAMESPACE,
    AdvisoryPageClaims,
    LocalPageClaims,
    open_page_claims,
)
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import PageRecord
from tests.database_support import MigratedDatabases, open_test_engine


@pytest.fixture
def postgres_engine(tmp_path: Path, migrated_databases: MigratedDatabases) -> Iterator[Engine]:
    engine = create_database_engine(migrated_databases.empty_url("postgresql", tmp_path))
    try:
        yield engine
    finally:
        engine.dispose()


def store_pages(engine: Engine, count: int, *, status: str = "pending") -> list[int]:
    repository = PageRepository(engine)
    return [
        repository.store_page(
            PageRecord(
                url=f"http://news.test/world/{status}-{index}",
                site="news.test",
                category="world",
                body=b"<html><body><p>story</p></body></html>",
                fetched_at=datetime(2026, 1, 1, tzinfo=UTC),
            ),
            status=status,
        )
        for index in range(count)
    ]


def test_a_page_claimed_by_one_worker_is_skipped_by_another(postgres_engine: Engine) -> None:
    ids = store_pages(postgres_engine, 4)
    first, second = AdvisoryPageClaims(postgres_engine), AdvisoryPageClaims(postgres_engine)
    try:
        assert first.claim_pages(ids[:2]) == set(ids[:2])
        assert second.claim_pages(ids) == set(ids[2:])
        first.release_pages(ids[:1])
        assert second.claim_pages(ids[:2]) == {ids[0]}
    finally:
        first.close()
        second.close()


def test_claims_of_a_dead_worker_are_freed(postgres_engine: Engine) -> None:
    ids = store_pages(postgres_engine, 3)
    dead, survivor = AdvisoryPageClaims(postgres_engine), AdvisoryPageClaims(postgres_engine)
    try:
        assert dead.claim_pages(ids) == set(ids)
        assert survivor.claim_pages(ids) == set()
        # A crashed worker's connection goes away, and its claims with it. The server frees
        # them when it notices the disconnect, which can lag the client's close a little.
        dead.close()
        claimed: set[int] = set()
        deadline = time.monotonic() + 10
        while claimed != set(ids) and time.monotonic() < deadline:
            claimed |= survivor.claim_pages(ids)
            if claimed != set(ids):
                time.sleep(0.05)
        assert claimed == set(ids)
    finally:
        survivor.close()


def test_pages_no_longer_pending_cannot_be_claimed(postgres_engine: Engine) -> None:
    pending = store_pages(postgres_engine, 2)
    extracted = store_pages(postgres_engine, 2, status="extracted")
    first, second = AdvisoryPageClaims(postgres_engine), AdvisoryPageClaims(postgres_engine)
    try:
        assert first.claim_pages(pending + extracted) == set(pending)
        # The extracted pages were not left locked behind.
        with postgres_engine.connect() as connection:
            held = connection.execute(
                text(
                    "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory'"
                    " AND objsubid = 2 AND granted"
                    " AND database = (SELECT oid FROM pg_database"
                    "                 WHERE datname = current_database())"
                    f" AND classid::bigint = ({PAGE_LOCK_NAMESPACE})::bigint & 4294967295"
                )
            ).scalars()
            assert set(held) & set(pending + extracted) == set(pending)
        first.release_pages(pending)
        assert second.claim_pages(pending) == set(pending)
    finally:
        first.close()
        second.close()


def test_sqlite_claims_are_local(tmp_path: Path) -> None:
    with open_test_engine("sqlite", tmp_path) as engine:
        claims = open_page_claims(engine)
        assert isinstance(claims, LocalPageClaims)
        assert not claims.is_shared
        assert claims.claim_pages([1, 2]) == {1, 2}
