from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from newscrawl.extraction import Article as ExtractedArticle
from newscrawl.items import PageItem
from newscrawl.pipelines.errors import PageExtractionFailed
from newscrawl.storage.models import Article, Page
from tests.pipelines.chain import PipelineChain, build_test_crawler
from tests.pipelines.page_factory import build_page_item, build_story


def run_without_buffer(database_url: str, items: list[PageItem], **settings: Any) -> dict[str, Any]:
    crawler = build_test_crawler(database_url, NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED=False, **settings)
    chain = PipelineChain(crawler)
    assert chain.buffer is None
    seen: dict[str, Any] = {"chain": chain}

    async def main() -> None:
        await chain.open()
        for item in items:
            await chain.process(item)
        with Session(chain.engine) as session:
            seen["pages"] = [(p.url, p.status, p.error) for p in session.scalars(select(Page))]
            seen["articles"] = list(session.scalars(select(Article)))
        await chain.close()

    asyncio.run(main())
    return seen


def test_single_page_mode_stores_page_and_article(database_url: str) -> None:
    item = build_page_item("solo.test", "world", 3)
    seen = run_without_buffer(database_url, [item])
    assert seen["pages"] == [(item.url, "extracted", None)]
    (article,) = seen["articles"]
    assert article.extraction_method == "single"
    assert "Story 3 paragraph 0" in article.text
    assert article.text.count("Story 3 paragraph") == len(build_story(3))
    assert (article.site, article.category, article.feed) == ("solo.test", "world", item.feed_url)
    assert article.authors == ["Desk Reporter"]
    assert article.language == "en"
    assert article.word_count == len(article.text.split())


def test_page_without_text_is_kept_as_failed_with_a_reason(database_url: str) -> None:
    empty = PageItem(
        url="http://solo.test/world/empty.html", site="solo.test", category="world", body=b""
    )
    seen = run_without_buffer(database_url, [empty])
    assert seen["articles"] == []
    assert seen["pages"] == [(empty.url, "failed", "no article text found")]
    ((_, drop),) = seen["chain"].dropped
    assert isinstance(drop, PageExtractionFailed)
    assert seen["chain"].stat("newscrawl/sql_storage/empty_articles") == 1


def test_stages_switched_off_still_store_articles(database_url: str) -> None:
    item = build_page_item("solo.test", "world", 5)
    seen = run_without_buffer(
        database_url,
        [item],
        NEWSCRAWL_DYNAMIC_NOISE_ENABLED=False,
        NEWSCRAWL_TITLE_RELEVANCE_ENABLED=False,
    )
    (article,) = seen["articles"]
    assert "Story 5 paragraph 2" in article.text


def run_concurrently(
    database_url: str,
    items: list[PageItem],
    *,
    before: Callable[[Engine], None] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Run `items` through the chain (buffer off) at the same time, as a busy crawl does."""
    crawler = build_test_crawler(database_url, NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED=False, **settings)
    chain = PipelineChain(crawler)
    seen: dict[str, Any] = {"chain": chain}

    async def main() -> None:
        await chain.open()
        try:
            if before is not None:
                before(chain.engine)
            seen["results"] = await asyncio.gather(*(chain.process(item) for item in items))
            with Session(chain.engine) as session:
                seen["pages"] = {p.url: (p.status, p.error) for p in session.scalars(select(Page))}
                seen["articles"] = {a.url: a for a in session.scalars(select(Article))}
        finally:
            await chain.close()

    asyncio.run(main())
    return seen


def test_concurrent_items_are_stored_in_one_batch(database_url: str) -> None:
    items = [build_page_item("solo.test", "world", number) for number in range(6)]
    seen = run_concurrently(database_url, items, NEWSCRAWL_WRITE_BATCH_DELAY=0.5)
    chain = seen["chain"]
    assert all(result is not None for result in seen["results"])
    assert seen["pages"] == {item.url: ("extracted", None) for item in items}
    assert set(seen["articles"]) == {item.url for item in items}
    assert chain.stat("newscrawl/store/batches") == 1
    assert chain.stat("newscrawl/store/batch_rows") == 6
    assert chain.stat("newscrawl/sql_storage/articles_stored") == 6


def test_batch_size_one_stores_each_item_on_its_own(database_url: str) -> None:
    items = [build_page_item("solo.test", "world", number) for number in range(3)]
    seen = run_concurrently(database_url, items, NEWSCRAWL_WRITE_BATCH_SIZE=1)
    assert seen["chain"].stat("newscrawl/store/batches") == 3
    assert set(seen["articles"]) == {item.url for item in items}


def reject_insert(table: str, url_part: str, *, also: str = "TRUE") -> Callable[[Engine], None]:
    """A trigger refusing rows of `table` whose URL contains `url_part` (and for which the SQL
    condition `also` holds): a non-outage error."""
    name = f"reject_{table}"

    def install(engine: Engine) -> None:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":
                connection.exec_driver_sql(
                    f"CREATE TRIGGER {name} BEFORE INSERT ON {table}"
                    f" WHEN instr(NEW.url, '{url_part}') > 0 AND {also}"
                    f" BEGIN SELECT RAISE(ABORT, '{table} row rejected'); END"
                )
                return
            connection.exec_driver_sql(
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$"
                f" BEGIN IF strpos(NEW.url, '{url_part}') > 0 AND {also} THEN"
                f" RAISE EXCEPTION '{table} row rejected'; END IF; RETURN NEW; END $$"
            )
            connection.exec_driver_sql(
                f"CREATE TRIGGER {name} BEFORE INSERT ON {table}"
                f" FOR EACH ROW EXECUTE FUNCTION {name}()"
            )

    return install


def test_a_row_the_database_refuses_fails_only_its_own_page(
    own_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    items = [build_page_item("solo.test", "world", number) for number in range(4)]
    bad = items[2]
    seen = run_concurrently(
        own_database_url,
        items,
        before=reject_insert("articles", "story-2."),
        NEWSCRAWL_WRITE_BATCH_DELAY=0.5,
    )
    chain = seen["chain"]
    assert set(seen["articles"]) == {item.url for item in items if item is not bad}
    status, error = seen["pages"][bad.url]
    assert status == "failed"
    assert error.startswith("storage error:") and "articles row rejected" in error
    ((dropped, drop),) = chain.dropped
    assert dropped is bad and isinstance(drop, PageExtractionFailed)
    assert chain.stat("newscrawl/sql_storage/storage_errors") == 1
    assert chain.stat("newscrawl/store/batches_split") == 1
    assert chain.stat("newscrawl/sql_storage/articles_stored") == 3
    assert f"Cannot store {bad.url}, dropping it" in caplog.text


def test_an_extraction_error_from_a_worker_fails_the_page(database_url: str) -> None:
    item = build_page_item("solo.test", "world", 1)
    item.extraction_error = "ValueError('broken tree')"
    seen = run_without_buffer(database_url, [item])
    assert seen["articles"] == []
    assert seen["pages"] == [(item.url, "failed", "extraction error: ValueError('broken tree')")]
    ((_, drop),) = seen["chain"].dropped
    assert isinstance(drop, PageExtractionFailed)
    assert seen["chain"].stat("newscrawl/sql_storage/extraction_errors") == 1


def test_an_article_extracted_by_a_worker_is_stored_as_is(database_url: str) -> None:
    item = build_page_item("solo.test", "world", 1)
    item.article = ExtractedArticle(
        title="From the pool",
        text="Extracted in a worker process.",
        html="<p>x</p>",
        method="neighbours",
    )
    seen = run_without_buffer(database_url, [item])
    (article,) = seen["articles"]
    assert (article.title, article.text) == ("From the pool", "Extracted in a worker process.")
    assert article.extraction_method == "neighbours"
    assert seen["pages"] == [(item.url, "extracted", None)]


def fail_insert_on_postgres(table: str, url_part: str, failure: str) -> Callable[[Engine], None]:
    """PostgreSQL only: rows of `table` whose URL contains `url_part` fail with `failure`
    (plpgsql), an error that belongs to that row and not to the server."""
    name = f"fail_{table}"

    def install(engine: Engine) -> None:
        with engine.begin() as connection:
            connection.exec_driver_sql(
                f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$"
                f" BEGIN IF strpos(NEW.url, '{url_part}') > 0 THEN {failure}; END IF;"
                " RETURN NEW; END $$"
            )
            connection.exec_driver_sql(
                f"CREATE TRIGGER {name} BEFORE INSERT ON {table}"
                f" FOR EACH ROW EXECUTE FUNCTION {name}()"
            )

    return install


# A schema error ("no such table") and a program limit (SQLSTATE 54000, what an oversized
# tsvector raises), both of which psycopg reports as OperationalErrors, once taken for outages.
ROW_FAULTS = {
    "schema_error": ("INSERT INTO no_such_table VALUES (1)", "no_such_table"),
    "program_limit": (
        "RAISE EXCEPTION 'string is too long for tsvector'"
        " USING ERRCODE = 'program_limit_exceeded'",
        "too long for tsvector",
    ),
}


@pytest.mark.parametrize("fault", sorted(ROW_FAULTS))
def test_a_data_error_fails_its_page_and_the_crawl_goes_on(
    own_database_url: str, fault: str
) -> None:
    if not own_database_url.startswith("postgresql"):
        pytest.skip("per-row schema errors and program limits need plpgsql")
    failure, message = ROW_FAULTS[fault]
    items = [build_page_item("solo.test", "world", number) for number in range(5)]
    bad = items[2]
    seen = run_concurrently(
        own_database_url,
        items,
        before=fail_insert_on_postgres("articles", "story-2.", failure),
        NEWSCRAWL_WRITE_BATCH_DELAY=0.5,
    )
    chain = seen["chain"]
    assert set(seen["articles"]) == {item.url for item in items if item is not bad}
    status, error = seen["pages"][bad.url]
    assert status == "failed"
    assert error.startswith("storage error:") and message in error
    assert chain.stat("newscrawl/sql_storage/storage_errors") == 1
    assert chain.stat("newscrawl/store/batches_split") == 1
    # Not taken for an outage: nothing spooled, the crawl was not stopped.
    assert chain.stat("newscrawl/spool/crawl_stopped") == 0
    assert chain.stat("newscrawl/spool/spooled") == 0


def test_an_article_too_big_for_a_whole_tsvector_is_stored_with_its_batch(
    database_url: str,
) -> None:
    """170,000 distinct words used to exceed PostgreSQL's 1 MB tsvector limit, which read as
    an outage and stopped every crawl; the batch's other articles stayed pending behind it."""
    items = [build_page_item("solo.test", "world", number) for number in range(4)]
    huge = items[1]
    huge.article = ExtractedArticle(
        title="A very long article",
        text="opening " + " ".join(f"w{number:x}q" for number in range(170_000)),
        html="<p>long</p>",
        method="neighbours",
    )
    seen = run_concurrently(database_url, items, NEWSCRAWL_WRITE_BATCH_DELAY=0.5)
    chain = seen["chain"]
    assert seen["pages"] == {item.url: ("extracted", None) for item in items}
    assert len(seen["articles"][huge.url].text) > 1_000_000
    assert chain.stat("newscrawl/sql_storage/articles_stored") == 4
    assert chain.stat("newscrawl/sql_storage/storage_errors") == 0
