"""Writes a transaction defers to its commit, on real databases: fewer statements, same rows."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, event, select
from sqlalchemy.orm import Session

from newscrawl.storage.article_repository import ArticleWrite, write_article
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.compression import decompress_body
from newscrawl.storage.models import Article, Page, Site
from newscrawl.storage.page_repository import (
    AdmissionWrite,
    PageRepository,
    upsert_page,
    write_admission,
    write_failed_page,
)
from newscrawl.storage.records import Admission, ArticleRecord, PageRecord, TemplateRecord
from tests.storage.test_repositories import fixed_template, make_article, make_page

BATCH = 12


@pytest.fixture
def statements(engine: Engine) -> Iterator[list[str]]:
    """Every statement sent on the engine (an executemany counts once)."""
    sent: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    yield sent
    event.remove(engine, "before_cursor_execute", record)


def store_pending(engine: Engine, count: int) -> list[int]:
    with Session(engine) as session, session.begin():
        return [upsert_page(session, make_page(number)) for number in range(count)]


def page_statuses(engine: Engine) -> dict[int, str]:
    with engine.connect() as connection:
        rows = connection.execute(select(Page.id, Page.status))
        return {page_id: status for page_id, status in rows}


def article_for(number: int) -> ArticleRecord:
    page = make_page(number)
    return make_article(page.url, title=f"Story {number}", text=f"The text of story {number}.")


def test_a_batch_of_articles_takes_two_statements_each_and_one_to_close_the_pages(
    engine: Engine, statements: list[str]
) -> None:
    page_ids = store_pending(engine, BATCH)
    statements.clear()
    with Session(engine) as session, session.begin():
        for number, page_id in enumerate(page_ids):
            write_article(session, article_for(number), page_id=page_id, page=None)
    sent = [s for s in statements if not s.startswith(("BEGIN", "SELECT 1"))]
    # Per article its identity lookup and its upsert; the pages close in one executemany.
    assert len(sent) == 2 * BATCH + 1
    assert sum(s.startswith("UPDATE pages") for s in sent) == 1
    assert set(page_statuses(engine).values()) == {"extracted"}


def test_a_batch_of_new_articles_is_written_in_four_statements(
    engine: Engine, statements: list[str]
) -> None:
    page_ids = store_pending(engine, BATCH)
    statements.clear()
    writer = BatchWriter(engine, batch_size=BATCH, delay=3600)

    async def main() -> list[int]:
        writes = [
            writer.write(ArticleWrite(article_for(number), page_id))
            for number, page_id in enumerate(page_ids)
        ]
        return await asyncio.gather(*writes)

    article_ids = asyncio.run(main())
    sent = [s for s in statements if not s.startswith(("BEGIN", "SELECT 1"))]
    # Their stored identities, their rows (one executemany) and their ids, their pages closed.
    assert [s.split()[0] for s in sent] == ["SELECT", "INSERT", "SELECT", "UPDATE"]
    assert len(set(article_ids)) == BATCH
    assert set(page_statuses(engine).values()) == {"extracted"}
    with Session(engine) as session:
        stored = {url: id_ for url, id_ in session.execute(select(Article.url, Article.id))}
    assert sorted(stored.values()) == sorted(article_ids)
    assert stored[article_for(3).url] == article_ids[3]


def test_the_site_row_is_written_once_at_the_commit(
    engine: Engine, statements: list[str]
) -> None:
    before = datetime.now(UTC)
    with Session(engine) as session, session.begin():
        for number in range(5):
            upsert_page(session, make_page(number))
    writes = [s.split("(")[0].split()[2] for s in statements if s.startswith(("INSERT", "UPDATE"))]
    # After the last page: a batch holds the row lock of its site for its commit only.
    assert writes.count("sites") == 1
    assert writes[-1] == "sites"
    with Session(engine) as session:
        site = session.scalars(select(Site)).one()
    assert site.name == "news.test"
    assert before <= site.first_seen_at == site.last_seen_at <= datetime.now(UTC)


def test_a_rolled_back_transaction_writes_no_site(engine: Engine) -> None:
    with pytest.raises(RuntimeError), Session(engine) as session, session.begin():
        upsert_page(session, make_page(1))
        raise RuntimeError("the batch failed")
    with Session(engine) as session:
        assert session.scalars(select(Site)).all() == []


def test_a_page_ends_with_its_last_write_of_the_transaction(engine: Engine) -> None:
    stored_again, failed_after, closed = store_pending(engine, 3)
    with Session(engine) as session, session.begin():
        for number, page_id in enumerate((stored_again, failed_after, closed)):
            write_article(session, article_for(number), page_id=page_id, page=None)
        # Written after the (deferred) close: these writes win, as they did one by one.
        assert upsert_page(session, make_page(0)) == stored_again
        write_failed_page(session, "late failure", page_id=failed_after, page=None)
    assert page_statuses(engine) == {
        stored_again: "pending",
        failed_after: "failed",
        closed: "extracted",
    }


def test_the_group_count_leaves_out_pages_closed_earlier_in_the_transaction(
    engine: Engine,
) -> None:
    page_ids = store_pending(engine, 4)
    with Session(engine) as session, session.begin():
        write_article(session, article_for(0), page_id=page_ids[0], page=None)
        admission = write_admission(session, make_page(9), count_limit=100)
    # Three still pending and the new page; the closed one no longer counts.
    assert admission.template is None
    assert admission.pending_in_group == 4


def test_an_admission_with_a_known_template_reads_it_in_one_statement(
    engine: Engine, statements: list[str]
) -> None:
    repository = PageRepository(engine)
    store_pending(engine, 3)
    learned = repository.learn_template(
        "news.test|world", fixed_template, max_pages=3, min_pages=2, replaces=None
    )
    assert learned is not None
    with Session(engine) as session, session.begin():
        upsert_page(session, make_page(20))  # the transaction's site and feed rows
        statements.clear()
        admission = write_admission(
            session, make_page(21), count_limit=100, known_templates={learned.key}
        )
    sent = [s for s in statements if not s.startswith(("BEGIN", "SELECT 1"))]
    # The page upsert, the template with the pages since it, then the site row at the commit.
    assert [s.split()[0] for s in sent] == ["INSERT", "SELECT", "INSERT"]
    assert admission.pages_since_template == 2
    assert admission.template is not None and admission.template.template is None


def admission_sequence() -> list[PageRecord]:
    """Pages of a group with a template (sport) and one without (world), interleaved, with
    a URL given twice."""
    pages = [make_page(10), make_page(11, category="sport"), make_page(12)]
    pages += [make_page(13, category="sport"), make_page(10, body=b"<p>again</p>"), make_page(14)]
    return pages


def prepare_groups(engine: Engine) -> TemplateRecord:
    """Two pending world pages, three sport pages with a template learned from them."""
    store_pending(engine, 2)
    with Session(engine) as session, session.begin():
        for number in range(3):
            upsert_page(session, make_page(100 + number, category="sport"))
    learned = PageRepository(engine).learn_template(
        "news.test|sport", fixed_template, max_pages=3, min_pages=2, replaces=None
    )
    assert learned is not None
    return learned


def describe(admissions: list[Admission]) -> list[tuple[int, int, bool, int]]:
    """What the pipeline reads of each admission; page ids as their first position."""
    first: dict[int, int] = {}
    for position, admission in enumerate(admissions):
        first.setdefault(admission.page_id, position)
    return [
        (a.pending_in_group, a.pages_since_template, a.template is None, first[a.page_id])
        for a in admissions
    ]


def test_a_batch_of_admissions_reads_what_one_by_one_admissions_read(engine: Engine) -> None:
    learned = prepare_groups(engine)
    known = {learned.key}
    with Session(engine) as session:
        # One by one in one transaction, rolled back: what each would read alone.
        session.begin()
        alone = [
            write_admission(session, page, count_limit=100, known_templates=known)
            for page in admission_sequence()
        ]
        session.rollback()
    writer = BatchWriter(engine, batch_size=len(admission_sequence()), delay=3600)

    async def main() -> list[Admission]:
        writes = [
            writer.write(AdmissionWrite(page, count_limit=100, known_templates=known))
            for page in admission_sequence()
        ]
        return await asyncio.gather(*writes)

    batched = asyncio.run(main())
    # Each page counts the pages of its group before it in the batch, not those after.
    assert describe(alone) == [
        (3, 0, True, 0),
        (0, 1, False, 1),
        (4, 0, True, 2),
        (0, 2, False, 3),
        (4, 0, True, 0),
        (5, 0, True, 5),
    ]
    assert describe(batched) == describe(alone)
    # The later write of the URL given twice is the one stored.
    with Session(engine) as session:
        body = session.scalar(select(Page.body).where(Page.url == make_page(10).url))
    assert body is not None and decompress_body(body, "zlib") == b"<p>again</p>"


def test_the_count_limit_caps_each_admission_of_a_batch(engine: Engine) -> None:
    store_pending(engine, 5)
    writer = BatchWriter(engine, batch_size=4, delay=3600)

    async def main() -> list[Admission]:
        pages = [make_page(number) for number in range(10, 14)]
        return await asyncio.gather(
            *(writer.write(AdmissionWrite(page, count_limit=7)) for page in pages)
        )

    assert [a.pending_in_group for a in asyncio.run(main())] == [6, 7, 7, 7]


def test_a_batch_of_admissions_upserts_its_pages_in_one_statement(
    engine: Engine, statements: list[str]
) -> None:
    learned = prepare_groups(engine)
    statements.clear()
    writer = BatchWriter(engine, batch_size=BATCH, delay=3600)

    async def main() -> list[Admission]:
        pages = [make_page(20 + number, category="sport") for number in range(BATCH // 2)]
        pages += [make_page(40 + number) for number in range(BATCH // 2)]
        return await asyncio.gather(
            *(writer.write(AdmissionWrite(page, 100, {learned.key})) for page in pages)
        )

    admissions = asyncio.run(main())
    sent = [s.split() for s in statements if not s.startswith(("BEGIN", "SELECT 1"))]
    # The two feeds, the pages (one executemany) and their ids, the templates of both groups,
    # the pending count of the group without one, the site at the commit.
    assert [s[0] if s[0] == "SELECT" else s[2] for s in sent] == [
        "feeds", "feeds", "pages", "SELECT", "SELECT", "SELECT", "sites"
    ]
    assert len({a.page_id for a in admissions}) == BATCH
