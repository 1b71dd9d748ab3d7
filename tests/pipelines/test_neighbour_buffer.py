from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from scrapy.exceptions import DontCloseSpider
from sqlalchemy import Engine, event, func, select
from sqlalchemy.orm import Session

from newscrawl.extraction import SiteTemplate
from newscrawl.pipelines import neighbour_buffer
from newscrawl.pipelines.errors import PageBuffered, PageExtractionFailed
from newscrawl.pipelines.page_items import build_page_record
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import upgrade_database
from newscrawl.storage.models import Article, Page, Template
from newscrawl.storage.page_claims import AdvisoryPageClaims
from newscrawl.storage.page_repository import upsert_page
from tests.database_support import MigratedDatabases
from tests.pipelines.chain import PipelineChain, build_test_crawler
from tests.pipelines.page_factory import build_page_item, build_story
from tests.pipelines.test_sql_storage import reject_insert

SITE = "daily.test"


def run_chain(
    database_url: str, scenario: Callable[[PipelineChain], Awaitable[None]], **settings: Any
) -> PipelineChain:
    chain = PipelineChain(build_test_crawler(database_url, **settings))

    async def main() -> None:
        await chain.open()
        try:
            await scenario(chain)
        finally:
            await chain.close()

    asyncio.run(main())
    return chain


def read_rows(chain: PipelineChain, model: type) -> list[Any]:
    with Session(chain.engine) as session:
        return list(session.scalars(select(model).order_by(model.id)))  # type: ignore[attr-defined]


def test_buffer_holds_pages_until_the_group_fills_then_extracts_them_all(database_url: str) -> None:
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        for number in range(9):
            assert await chain.process(build_page_item(SITE, "world", number)) is None
        seen["pending"] = [page.status for page in read_rows(chain, Page)]
        tenth = await chain.process(build_page_item(SITE, "world", 9))
        assert tenth is not None and isinstance(tenth.template, SiteTemplate)
        await chain.wait_for_flushes()
        seen["articles"] = read_rows(chain, Article)
        seen["pages"] = read_rows(chain, Page)
        seen["templates"] = read_rows(chain, Template)

    chain = run_chain(database_url, scenario)
    assert seen["pending"] == ["pending"] * 9
    assert all(isinstance(drop, PageBuffered) for _, drop in chain.dropped)
    assert len(chain.dropped) == 9
    assert {page.status for page in seen["pages"]} == {"extracted"}
    assert len(seen["templates"]) == 1 and seen["templates"][0].page_count == 10
    articles = seen["articles"]
    assert len(articles) == 10
    assert {article.extraction_method for article in articles} == {"neighbours"}
    for article in articles:
        number = int(article.url.rsplit("-", 1)[1].split(".")[0])
        paragraphs = article.text.split("\n\n")
        assert all(paragraph in paragraphs for paragraph in build_story(number))
        # Template noise repeated on every page of the group is gone.
        assert "Copyright" not in article.text
        assert "section" not in article.text
    assert chain.stat("newscrawl/neighbour_buffer/pages_buffered") == 9
    assert chain.stat("newscrawl/neighbour_buffer/pages_reinjected_neighbours") == 9
    assert chain.stat("newscrawl/sql_storage/articles_stored") == 10


def test_known_group_is_extracted_at_once(database_url: str) -> None:
    async def fill(chain: PipelineChain) -> None:
        for number in range(10):
            await chain.process(build_page_item(SITE, "world", number))
        await chain.wait_for_flushes()

    run_chain(database_url, fill)

    async def crawl_again(chain: PipelineChain) -> None:
        item = await chain.process(build_page_item(SITE, "world", 42))
        assert item is not None and item.extraction_mode == "neighbours"
        assert item.article is not None and "Story 42 paragraph 0" in item.article.text

    chain = run_chain(database_url, crawl_again)
    assert chain.dropped == []
    assert chain.stat("newscrawl/neighbour_buffer/pages_buffered") == 0


def count_template_blob_reads(engine: Engine) -> list[str]:
    """Every statement that reads the templates.template blob, as the engine runs it."""
    reads: list[str] = []
    blob = re.compile(r"\btemplates\.template\b")

    @event.listens_for(engine, "before_cursor_execute")
    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and blob.search(statement):
            reads.append(statement)

    return reads


def test_pages_of_a_group_whose_template_did_not_change_skip_its_blob(database_url: str) -> None:
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        for number in range(10):
            await chain.process(build_page_item(SITE, "world", number))
        await chain.wait_for_flushes()
        reads = count_template_blob_reads(chain.buffer.engine)
        items = [await chain.process(build_page_item(SITE, "world", n)) for n in range(10, 13)]
        seen["modes"] = [item.extraction_mode if item else None for item in items]
        seen["reads"] = list(reads)

    chain = run_chain(database_url, scenario)
    assert seen["modes"] == ["neighbours"] * 3
    # The decoded template is cached from learning it: no page loads the blob again.
    assert seen["reads"] == []
    assert chain.stat("newscrawl/neighbour_buffer/templates_learned") == 1


def test_a_template_evicted_after_its_admission_is_loaded_again(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One decoded template at a time: admitting "sport" evicts "world" after its admission
    # (one batch) saw it cached and skipped its blob.
    monkeypatch.setattr(neighbour_buffer, "TEMPLATE_CACHE_SIZE", 1)
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        for category in ("sport", "world"):
            for number in range(10):
                await chain.process(build_page_item(SITE, category, number))
            await chain.wait_for_flushes()
        reads = count_template_blob_reads(chain.buffer.engine)
        items = await asyncio.gather(
            *(chain.process(build_page_item(SITE, c, 20)) for c in ("sport", "world"))
        )
        seen["modes"] = [item.extraction_mode if item else None for item in items]
        seen["reads"] = len(reads)

    chain = run_chain(database_url, scenario, NEWSCRAWL_WRITE_BATCH_DELAY=0.5)
    assert seen["modes"] == ["neighbours", "neighbours"]
    # sport's admission loads its blob; world's is loaded again once sport evicted it.
    assert seen["reads"] == 2
    assert chain.stat("newscrawl/neighbour_buffer/pages_buffered") == 18


def test_idle_flush_extracts_groups_that_never_filled(database_url: str) -> None:
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        for number in range(3):
            await chain.process(build_page_item(SITE, "sport", number))
        await chain.process(build_page_item(SITE, "culture", 7))
        assert len(chain.dropped) == 4
        with pytest.raises(DontCloseSpider):
            chain.buffer.on_spider_idle()
        await chain.wait_for_flushes()
        chain.buffer.on_spider_idle()  # nothing left: the spider may close
        seen["articles"] = {a.url: a.extraction_method for a in read_rows(chain, Article)}
        seen["statuses"] = {page.status for page in read_rows(chain, Page)}

    chain = run_chain(database_url, scenario)
    assert seen["statuses"] == {"extracted"}
    assert seen["articles"] == {
        f"http://{SITE}/sport/story-0.html": "neighbours",
        f"http://{SITE}/sport/story-1.html": "neighbours",
        f"http://{SITE}/sport/story-2.html": "neighbours",
        f"http://{SITE}/culture/story-7.html": "single",
    }
    assert chain.stat("newscrawl/neighbour_buffer/groups_flushed_partial") == 1
    assert chain.stat("newscrawl/neighbour_buffer/groups_flushed_single") == 1


def test_idle_flush_reads_a_small_groups_pending_pages_once(database_url: str) -> None:
    # A batch shorter than NEWSCRAWL_NEIGHBOURS held the group's last pending pages: reading
    # the group again finds none, and with 100+ small groups that is 100+ queries more.
    reads: list[str] = []

    def count_pending_reads(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "pages.status =" in statement and "ORDER BY pages.id" in statement:
            reads.append(statement)

    async def scenario(chain: PipelineChain) -> None:
        for number in range(3):
            await chain.process(build_page_item(SITE, "sport", number))
        await chain.process(build_page_item(SITE, "culture", 7))
        event.listen(chain.engine, "before_cursor_execute", count_pending_reads)
        try:
            with pytest.raises(DontCloseSpider):
                chain.buffer.on_spider_idle()
            await chain.wait_for_flushes()
        finally:
            event.remove(chain.engine, "before_cursor_execute", count_pending_reads)

    chain = run_chain(database_url, scenario)
    assert len(chain.stored) == 4
    assert len(reads) == 2, reads


def test_a_partial_template_never_counts_the_page_it_is_applied_to(database_url: str) -> None:
    # Page 1 teases page 0's lede in its sidebar: counted with page 0 itself, the lede would be
    # on every page of the two-page group, and static noise would cut it from page 0.
    seen: dict[str, Any] = {}
    lede = build_story(0)[0]
    teaser = build_page_item(SITE, "sport", 1)
    teaser.body = teaser.body.replace(b"<h3>Related</h3>", f"<p>{lede}</p>".encode())

    async def scenario(chain: PipelineChain) -> None:
        await chain.process(build_page_item(SITE, "sport", 0))
        await chain.process(teaser)
        with pytest.raises(DontCloseSpider):
            chain.buffer.on_spider_idle()
        await chain.wait_for_flushes()
        seen["articles"] = {a.url: a for a in read_rows(chain, Article)}

    chain = run_chain(database_url, scenario)
    first = seen["articles"][f"http://{SITE}/sport/story-0.html"]
    assert {item.url: item.template_includes_page for item in chain.stored} == {
        f"http://{SITE}/sport/story-0.html": True,
        f"http://{SITE}/sport/story-1.html": True,
    }
    assert all(paragraph in first.text for paragraph in build_story(0))
    second = seen["articles"][f"http://{SITE}/sport/story-1.html"]
    assert all(paragraph in second.text for paragraph in build_story(1))


def test_a_finished_flush_asks_the_engine_for_an_idle_check_at_once(database_url: str) -> None:
    # Re-injected items end without a response: without this request, Scrapy notices the idle
    # spider only at its next 5 s heartbeat, both to start the final flush and to close.
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        for number in range(6):
            await chain.process(build_page_item(SITE, "world", number))
        await chain.process(build_page_item(SITE, "sport", 0))
        seen["after_group_flush"] = await requests_after_flushes(chain)
        with pytest.raises(DontCloseSpider):
            chain.buffer.on_spider_idle()
        seen["after_final_flush"] = await requests_after_flushes(chain)
        chain.buffer.on_spider_idle()  # the check it asked for: the spider may close
        seen["articles"] = len(read_rows(chain, Article))

    run_chain(database_url, scenario, NEWSCRAWL_NEIGHBOURS=5)
    # The world group's own flush, then the final flush of sport: one request each.
    assert seen == {"after_group_flush": 1, "after_final_flush": 2, "articles": 7}


@pytest.fixture
def postgres_url(tmp_path: Path, migrated_databases: MigratedDatabases) -> str:
    """The session's migrated PostgreSQL database, emptied: only there do workers share claims."""
    return migrated_databases.empty_url("postgresql", tmp_path)


def test_a_flush_blocked_by_another_worker_leaves_the_next_look_to_the_heartbeat(
    postgres_url: str,
) -> None:
    # Waking the engine at once would start the same fruitless flush again, in a busy loop.
    seen: dict[str, Any] = {}
    other_engine = create_database_engine(postgres_url)
    other_worker = AdvisoryPageClaims(other_engine)

    async def scenario(chain: PipelineChain) -> None:
        for number in range(2):
            await chain.process(build_page_item(SITE, "world", number))
        # A second worker's connection holds every pending page, as a live peer would.
        pending = [page.id for page in read_rows(chain, Page)]
        seen["held_elsewhere"] = len(await asyncio.to_thread(other_worker.claim_pages, pending))
        with pytest.raises(DontCloseSpider):
            chain.buffer.on_spider_idle()
        seen["requests"] = await requests_after_flushes(chain)
        with pytest.raises(DontCloseSpider):  # the heartbeat's look: still theirs, still open
            chain.buffer.on_spider_idle()
        await chain.wait_for_flushes()
        seen["statuses"] = {page.status for page in read_rows(chain, Page)}

    try:
        chain = run_chain(postgres_url, scenario, NEWSCRAWL_NEIGHBOURS=5)
    finally:
        other_worker.close()
        other_engine.dispose()
    assert seen == {"held_elsewhere": 2, "requests": 0, "statuses": {"pending"}}
    assert chain.stat("newscrawl/neighbour_buffer/pages_claimed_elsewhere") >= 2


async def requests_after_flushes(chain: PipelineChain) -> int:
    """Idle checks the buffer has asked for once every flush so far has finished."""
    await chain.wait_for_flushes()
    return chain.idle_checks_requested


def test_pages_left_pending_by_a_killed_crawl_are_extracted_by_the_next(database_url: str) -> None:
    async def interrupted(chain: PipelineChain) -> None:
        for number in range(4):
            await chain.process(build_page_item(SITE, "world", number))

    run_chain(database_url, interrupted)
    seen: dict[str, Any] = {}

    async def resumed(chain: PipelineChain) -> None:
        with pytest.raises(DontCloseSpider):
            chain.buffer.on_spider_idle()
        await chain.wait_for_flushes()
        seen["articles"] = len(read_rows(chain, Article))

    run_chain(database_url, resumed)
    assert seen["articles"] == 4


def test_template_is_relearned_after_max_pages(database_url: str) -> None:
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        for number in range(4):
            await chain.process(build_page_item(SITE, "world", number))
        await chain.wait_for_flushes()
        (first,) = read_rows(chain, Template)
        for number in range(4, 7):
            await chain.process(build_page_item(SITE, "world", number))
        (second,) = read_rows(chain, Template)
        seen["learned"] = (
            first.learned_at,
            first.last_page_id,
            second.learned_at,
            second.last_page_id,
        )

    chain = run_chain(
        database_url, scenario, NEWSCRAWL_NEIGHBOURS=4, NEWSCRAWL_TEMPLATE_MAX_PAGES=2
    )
    first_at, first_last, second_at, second_last = seen["learned"]
    assert second_at > first_at and second_last > first_last
    assert chain.stat("newscrawl/neighbour_buffer/templates_stale") >= 1
    assert chain.stat("newscrawl/neighbour_buffer/templates_learned") >= 2


@pytest.mark.parametrize(
    "settings",
    [
        {"NEWSCRAWL_EXTRACTION_CONFIG": "paper"},  # learned under another config
        {"NEWSCRAWL_TEMPLATE_MAX_AGE": 0.001},  # learned too long ago
    ],
)
def test_template_is_relearned_when_stale(database_url: str, settings: dict[str, Any]) -> None:
    async def fill(chain: PipelineChain) -> None:
        for number in range(4):
            await chain.process(build_page_item(SITE, "world", number))
        await chain.wait_for_flushes()

    run_chain(database_url, fill, NEWSCRAWL_NEIGHBOURS=4)
    seen: dict[str, Any] = {}

    async def later(chain: PipelineChain) -> None:
        (before,) = read_rows(chain, Template)
        await asyncio.sleep(0.01)
        item = await chain.process(build_page_item(SITE, "world", 9))
        assert item is not None and item.extraction_mode == "neighbours"
        (after,) = read_rows(chain, Template)
        seen["templates"] = (before, after)

    chain = run_chain(database_url, later, NEWSCRAWL_NEIGHBOURS=4, **settings)
    before, after = seen["templates"]
    assert after.learned_at > before.learned_at
    assert after.last_page_id > before.last_page_id
    assert chain.stat("newscrawl/neighbour_buffer/templates_stale") == 1


def test_two_workers_share_one_group_without_losing_or_duplicating(database_url: str) -> None:
    seen: dict[str, Any] = {}
    workers = [PipelineChain(build_test_crawler(database_url)) for _ in range(2)]

    async def main() -> None:
        for worker in workers:
            await worker.open()
        items = [build_page_item(SITE, "world", number) for number in range(25)]
        # Both workers take pages of the same group at the same time, as scale-out does.
        await asyncio.gather(*(workers[n % 2].process(item) for n, item in enumerate(items)))
        for worker in workers:
            await worker.wait_for_flushes()
        # The end of the crawl on both workers.
        for worker in workers:
            try:
                worker.buffer.on_spider_idle()
            except DontCloseSpider:
                await worker.wait_for_flushes()
        seen["pages"] = [page.status for page in read_rows(workers[0], Page)]
        seen["articles"] = [article.url for article in read_rows(workers[0], Article)]
        seen["templates"] = read_rows(workers[0], Template)
        for worker in workers:
            await worker.close()

    asyncio.run(main())
    assert seen["pages"] == ["extracted"] * 25
    assert len(seen["articles"]) == len(set(seen["articles"])) == 25
    assert len(seen["templates"]) == 1
    learned = sum(w.stat("newscrawl/neighbour_buffer/templates_learned") for w in workers)
    assert learned == 1


def store_pending_backlog(database_url: str, count: int) -> list[str]:
    """What a long, interrupted crawl leaves: `count` pending pages of one group."""
    engine = create_database_engine(database_url)
    try:
        upgrade_database(engine)
        items = [build_page_item(SITE, "world", number) for number in range(count)]
        with Session(engine) as session, session.begin():
            for item in items:
                upsert_page(session, build_page_record(item))
    finally:
        engine.dispose()
    return [item.url for item in items]


def test_idle_flush_pages_through_a_big_backlog_by_id(tmp_path: Path) -> None:
    # More pending pages of one group than a NOT IN list of seen ids should ever hold.
    database_url = f"sqlite:///{tmp_path / 'backlog.db'}"
    urls = store_pending_backlog(database_url, 1_050)
    seen: dict[str, Any] = {}

    async def scenario(chain: PipelineChain) -> None:
        with pytest.raises(DontCloseSpider):
            chain.buffer.on_spider_idle()
        await chain.wait_for_flushes()
        with Session(chain.engine) as session:
            seen["statuses"] = dict(
                session.execute(select(Page.status, func.count()).group_by(Page.status)).all()
            )
            seen["articles"] = session.scalar(select(func.count()).select_from(Article))

    chain = run_chain(
        database_url, scenario, NEWSCRAWL_NEIGHBOURS=50, NEWSCRAWL_WRITE_BATCH_DELAY=0.01
    )
    assert seen["statuses"] == {"extracted": len(urls)}
    assert seen["articles"] == len(urls)
    # Each page re-entered the chain exactly once.
    assert chain.stat("newscrawl/neighbour_buffer/pages_reinjected_neighbours") == len(urls)
    assert len(chain.stored) == len(urls)
    assert chain.stat("newscrawl/store/batches") < len(urls) / 10


def test_pages_arriving_together_are_admitted_in_one_batch(database_url: str) -> None:
    async def scenario(chain: PipelineChain) -> None:
        items = [build_page_item(SITE, "world", number) for number in range(5)]
        assert await asyncio.gather(*(chain.process(item) for item in items)) == [None] * 5

    chain = run_chain(database_url, scenario, NEWSCRAWL_WRITE_BATCH_DELAY=0.5)
    assert chain.stat("newscrawl/store/batches") == 1
    assert chain.stat("newscrawl/store/batch_rows") == 5
    assert chain.stat("newscrawl/neighbour_buffer/pages_buffered") == 5


def test_a_page_the_database_refuses_is_dropped_and_counted(
    own_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    items = [build_page_item(SITE, "world", number) for number in range(3)]

    async def scenario(chain: PipelineChain) -> None:
        reject_insert("pages", "story-1.")(chain.engine)
        await asyncio.gather(*(chain.process(item) for item in items))

    chain = run_chain(own_database_url, scenario, NEWSCRAWL_WRITE_BATCH_DELAY=0.5)
    drops = {item.url: type(drop) for item, drop in chain.dropped}
    assert drops == {
        items[0].url: PageBuffered,
        items[1].url: PageExtractionFailed,
        items[2].url: PageBuffered,
    }
    assert chain.stat("newscrawl/neighbour_buffer/storage_errors") == 1
    assert chain.stat("newscrawl/neighbour_buffer/pages_buffered") == 2
    assert f"Cannot store {items[1].url}, dropping it" in caplog.text


def test_a_refused_page_is_kept_as_failed_with_the_reason(own_database_url: str) -> None:
    items = [build_page_item(SITE, "world", number) for number in range(3)]

    pages: dict[str, tuple[str, str | None]] = {}

    async def scenario(chain: PipelineChain) -> None:
        # The pending row is refused; the same page stored as failed is accepted.
        reject_insert("pages", "story-1.", also="NEW.status = 'pending'")(chain.engine)
        await asyncio.gather(*(chain.process(item) for item in items))
        pages.update((page.url, (page.status, page.error)) for page in read_rows(chain, Page))

    chain = run_chain(own_database_url, scenario, NEWSCRAWL_WRITE_BATCH_DELAY=0.5)
    status, error = pages[items[1].url]
    assert status == "failed" and error is not None and "pages row rejected" in error
    assert {pages[items[0].url][0], pages[items[2].url][0]} == {"pending"}
    assert chain.stat("newscrawl/neighbour_buffer/storage_errors") == 1
