"""BatchWriter on real databases: one transaction per batch, each caller waits for its commit."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
from sqlalchemy import Engine, event, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from newscrawl.storage.article_repository import write_article
from newscrawl.storage.batch_writer import BatchWriter, CommitWrites
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.models import Article, Page
from newscrawl.storage.page_repository import write_admission
from newscrawl.storage.retry import is_transient_error
from tests.storage.test_repositories import make_article, make_page


class Outage(Exception):
    """Stands for a database that is down."""


@pytest.fixture
def commits(engine: Engine) -> Iterator[list[int]]:
    """One entry per transaction committed on the engine."""
    seen: list[int] = []

    def on_commit(_connection: Any) -> None:
        seen.append(1)

    event.listen(engine, "commit", on_commit)
    yield seen
    event.remove(engine, "commit", on_commit)


def count_events(events: dict[str, int], name: str, count: int) -> None:
    events[name] = events.get(name, 0) + count


def admit(number: int) -> Any:
    return partial(write_admission, page=make_page(number), count_limit=100)


def stored_urls(url: str) -> set[str]:
    """The page URLs another connection (a fresh engine) sees committed."""
    other = create_database_engine(url)
    try:
        with Session(other) as session:
            return set(session.scalars(select(Page.url)))
    finally:
        other.dispose()


def test_concurrent_writes_share_one_transaction(engine: Engine, commits: list[int]) -> None:
    events: dict[str, int] = {}
    writer = BatchWriter(engine, batch_size=50, delay=0.05, on_event=partial(count_events, events))

    async def main() -> list[Any]:
        admissions = await asyncio.gather(*(writer.write(admit(n)) for n in range(7)))
        await writer.close()
        return admissions

    admissions = asyncio.run(main())

    assert commits == [1]
    # One delay: the first write waited for company, the other six joined it.
    assert events == {"delays": 1, "batches": 1, "batch_rows": 7}
    assert len({admission.page_id for admission in admissions}) == 7
    # The group count of each admission includes the pages written before it in the batch.
    assert sorted(admission.pending_in_group for admission in admissions) == list(range(1, 8))


def test_batch_size_one_is_one_transaction_per_write(engine: Engine, commits: list[int]) -> None:
    writer = BatchWriter(engine, batch_size=1, delay=10)

    async def main() -> None:
        await asyncio.gather(*(writer.write(admit(n)) for n in range(3)))
        await writer.close()

    asyncio.run(main())
    assert commits == [1, 1, 1]


def test_a_full_batch_goes_at_once_and_splits_the_rest(engine: Engine, commits: list[int]) -> None:
    # A delay no test waits for: only the batch size (and close) can start a commit.
    writer = BatchWriter(engine, batch_size=3, delay=3600)

    async def main() -> None:
        await asyncio.gather(*(writer.write(admit(n)) for n in range(3)))
        late = asyncio.ensure_future(writer.write(admit(3)))
        await asyncio.sleep(0.05)
        assert not late.done()
        await writer.close()
        await late

    asyncio.run(main())
    assert commits == [1, 1]


def test_without_delay_commits_at_once_and_still_groups_concurrent_writes(
    engine: Engine, commits: list[int]
) -> None:
    # A delay no test waits for: inside the block writes must commit without it.
    events: dict[str, int] = {}
    writer = BatchWriter(engine, batch_size=50, delay=3600, on_event=partial(count_events, events))

    async def main() -> None:
        waiting = asyncio.ensure_future(writer.write(admit(0)))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        with writer.without_delay():
            # The write already waiting for company goes now.
            await asyncio.wait_for(waiting, timeout=30)
            # Writes queued together share one batch, without a delay.
            await asyncio.wait_for(
                asyncio.gather(*(writer.write(admit(n)) for n in range(1, 6))), timeout=30
            )
        # After the block, writes wait for company again.
        late = asyncio.ensure_future(writer.write(admit(6)))
        await asyncio.sleep(0.05)
        assert not late.done()
        await writer.close()
        await late

    asyncio.run(main())
    assert commits == [1, 1, 1]
    assert events == {"delays": 2, "batches": 3, "batch_rows": 7}


def test_a_write_returns_only_once_its_row_is_visible_elsewhere(engine: Engine) -> None:
    url = engine.url.render_as_string(hide_password=False)
    writer = BatchWriter(engine, batch_size=2, delay=3600)
    first_url = make_page(1).url

    async def main() -> None:
        first = asyncio.ensure_future(writer.write(admit(1)))
        await asyncio.sleep(0.05)
        # Queued, not committed: the caller still waits and nothing is visible.
        assert not first.done()
        assert await asyncio.to_thread(stored_urls, url) == set()
        second = asyncio.ensure_future(writer.write(admit(2)))
        await first
        # The moment the caller is told, another connection sees the row.
        assert first_url in await asyncio.to_thread(stored_urls, url)
        await second

    asyncio.run(main())


def test_one_bad_row_fails_alone(engine: Engine, commits: list[int]) -> None:
    events: dict[str, int] = {}
    writer = BatchWriter(engine, batch_size=4, delay=3600, on_event=partial(count_events, events))
    good = [make_page(n) for n in range(3)]
    # An article whose page does not exist breaks the foreign key.
    orphan = make_article("http://news.test/world/orphan.html", title="T", text="orphan")

    async def main() -> list[Any]:
        writes: list[Any] = [partial(write_admission, page=page, count_limit=10) for page in good]
        writes.insert(1, partial(write_article, article=orphan, page_id=10_000, page=None))
        return await asyncio.gather(
            *(writer.write(write) for write in writes), return_exceptions=True
        )

    results = asyncio.run(main())

    assert isinstance(results[1], IntegrityError)
    assert all(not isinstance(result, BaseException) for i, result in enumerate(results) if i != 1)
    assert events == {"delays": 1, "batches": 1, "batch_rows": 4, "batches_split": 1}
    # The failed batch rolled back; then each write ran alone, the good ones committed.
    assert len(commits) == 3
    with Session(engine) as session:
        assert set(session.scalars(select(Page.url))) == {page.url for page in good}
        assert list(session.scalars(select(Article))) == []


def test_an_outage_fails_every_write_of_the_batch_without_splitting(engine: Engine) -> None:
    events: dict[str, int] = {}
    attempts: list[int] = []

    def fail_while_down(commit: CommitWrites) -> CommitWrites:
        def guarded(writes: list[Any]) -> list[Any]:
            attempts.append(len(writes))
            raise Outage("the database is down")

        return guarded

    writer = BatchWriter(
        engine,
        batch_size=3,
        delay=3600,
        guard=fail_while_down,
        is_outage=lambda error: isinstance(error, Outage),
        on_event=partial(count_events, events),
    )

    async def main() -> list[Any]:
        return await asyncio.gather(
            *(writer.write(admit(n)) for n in range(3)), return_exceptions=True
        )

    results = asyncio.run(main())
    assert [type(result) for result in results] == [Outage] * 3
    assert attempts == [3]
    assert "batches_split" not in events


def query_missing_table(session: Session) -> None:
    session.execute(text("SELECT * FROM no_such_table"))


def test_a_schema_error_fails_alone_and_is_not_an_outage(engine: Engine) -> None:
    """With the real classifier: "no such table" (an OperationalError on SQLite) is the
    write's own error, so the batch splits and its other writes commit."""
    events: dict[str, int] = {}
    writer = BatchWriter(engine, batch_size=4, delay=3600, on_event=partial(count_events, events))
    good = [make_page(n) for n in range(3)]

    async def main() -> list[Any]:
        writes: list[Any] = [partial(write_admission, page=page, count_limit=10) for page in good]
        writes.insert(2, query_missing_table)
        return await asyncio.gather(
            *(writer.write(write) for write in writes), return_exceptions=True
        )

    results = asyncio.run(main())
    assert isinstance(results[2], DBAPIError)
    assert not is_transient_error(results[2])
    assert [isinstance(result, BaseException) for result in results] == [0, 0, 1, 0]
    assert events["batches_split"] == 1
    with Session(engine) as session:
        assert set(session.scalars(select(Page.url))) == {page.url for page in good}
