"""Extraction in a process pool (NEWSCRAWL_EXTRACTION_WORKERS > 0) against inline extraction."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler
from sqlalchemy import select
from sqlalchemy.orm import Session

from newscrawl.extraction import Article, ExtractionConfig
from newscrawl.extraction.document import MAX_ELEMENTS
from newscrawl.items import PageItem
from newscrawl.pipelines.article_extraction import ArticleExtractionPipeline
from newscrawl.pipelines.errors import PageExtractionFailed
from newscrawl.pipelines.extraction_pool import ExtractionPool
from newscrawl.spider_arguments import CrawlArgumentError
from newscrawl.storage.models import Page
from tests.pipelines.chain import PipelineChain, build_test_crawler
from tests.pipelines.extraction_tasks import (
    CRASH_MARK,
    RAISE_MARK,
    crash_on_marked_pages,
    raise_on_marked_pages,
)
from tests.pipelines.page_factory import build_page_item, build_story

REPO_ROOT = Path(__file__).resolve().parents[2]
# Starts a pool of two workers, prints their pids once they extracted a page, then waits.
POOL_SCRIPT = """
import asyncio, multiprocessing, time
from newscrawl.extraction import ExtractionConfig
from newscrawl.pipelines.extraction_pool import ExtractionPool
from newscrawl.extraction.stages import STAGE_ORDER
from newscrawl.pipelines.extraction_pool_worker import ExtractionJob

async def main():
    pool = ExtractionPool(2)
    pool.start()
    job = ExtractionJob("http://solo.test/", "<p>Some words.</p>", None, None, STAGE_ORDER,
                        ExtractionConfig())
    await asyncio.gather(*(pool.run(job) for _ in range(8)))
    print(*(child.pid for child in multiprocessing.active_children()), flush=True)
    time.sleep(600)

asyncio.run(main())
"""
STAGE_EVENTS = ("applied", "failed", "unparsable", "skipped_no_template")
STAGES = ("static_noise", "dynamic_noise", "title_relevance")


def build_items() -> list[PageItem]:
    """A full group (learns a template: neighbour mode) and a lone page (single-page mode)."""
    return [build_page_item("daily.test", "world", n) for n in range(12)] + [
        build_page_item("daily.test", "culture", 40)
    ]


def run_chain(
    database_url: str, items: list[PageItem], task: Any = None, **settings: Any
) -> PipelineChain:
    """Push the items through the project's pipelines, concurrently as Scrapy does."""
    chain = PipelineChain(build_test_crawler(database_url, **settings))
    extraction = chain._find(ArticleExtractionPipeline)
    if task is not None:
        extraction.pool.task = task

    async def main() -> None:
        await chain.open()
        try:
            await asyncio.gather(*(chain.process(item) for item in items))
            if chain.buffer is not None:
                await chain.wait_for_flushes()
                # The end of the crawl: groups that never filled go on in single-page mode.
                with contextlib.suppress(DontCloseSpider):
                    chain.buffer.on_spider_idle()
                await chain.wait_for_flushes()
        finally:
            await chain.close()

    asyncio.run(main())
    return chain


def read_articles(chain: PipelineChain) -> dict[str, Article]:
    return {item.url: item.article for item in chain.stored}


def read_stage_stats(chain: PipelineChain) -> dict[str, int]:
    return {
        f"{stage}/{event}": chain.stat(f"newscrawl/{stage}/{event}")
        for stage in STAGES
        for event in STAGE_EVENTS
    }


@pytest.mark.parametrize(
    "switches",
    [
        {},
        {"NEWSCRAWL_STATIC_NOISE_ENABLED": False},
        {"NEWSCRAWL_DYNAMIC_NOISE_ENABLED": False},
        {"NEWSCRAWL_TITLE_RELEVANCE_ENABLED": False},
    ],
    ids=["all-stages", "no-static", "no-dynamic", "no-title"],
)
def test_pool_extracts_what_inline_extracts(tmp_path: Path, switches: dict[str, bool]) -> None:
    inline = run_chain(
        f"sqlite:///{tmp_path / 'inline.db'}",
        build_items(),
        NEWSCRAWL_EXTRACTION_WORKERS=0,
        **switches,
    )
    pooled = run_chain(
        f"sqlite:///{tmp_path / 'pool.db'}",
        build_items(),
        NEWSCRAWL_EXTRACTION_WORKERS=2,
        **switches,
    )
    inline_articles, pooled_articles = read_articles(inline), read_articles(pooled)
    assert len(pooled_articles) == 13
    assert pooled_articles == inline_articles
    methods = {a.method for a in pooled_articles.values()}
    assert methods == (
        {"single"}
        if switches.get("NEWSCRAWL_STATIC_NOISE_ENABLED") is False
        else {"neighbours", "single"}
    )
    # The stage counters mean the same in both modes, switched-off stages count nothing.
    assert read_stage_stats(pooled) == read_stage_stats(inline)
    for setting in switches:
        stage = setting.removeprefix("NEWSCRAWL_").removesuffix("_ENABLED").lower()
        assert pooled.stat(f"newscrawl/{stage}/applied") == 0
    # One path: inline is the same job, run in the crawl process.
    assert pooled.stat("newscrawl/article_extraction/extracted") == 13
    assert inline.stat("newscrawl/article_extraction/extracted") == 13


def test_a_negative_worker_count_stops_the_chain_before_any_page_is_failed(
    tmp_path: Path,
) -> None:
    database_url = f"sqlite:///{tmp_path / 'refused.db'}"
    with pytest.raises(CrawlArgumentError, match="NEWSCRAWL_EXTRACTION_WORKERS"):
        run_chain(database_url, build_items(), NEWSCRAWL_EXTRACTION_WORKERS=-1)


@pytest.mark.parametrize("workers", [0, 1])
def test_stage_pipelines_only_list_their_stage(tmp_path: Path, workers: int) -> None:
    chain = run_chain(
        f"sqlite:///{tmp_path / 'pool.db'}",
        build_items(),
        NEWSCRAWL_EXTRACTION_WORKERS=workers,
        NEWSCRAWL_DYNAMIC_NOISE_ENABLED=False,
    )
    stages = {item.url: item.stages for item in chain.stored}
    lone = "http://daily.test/culture/story-40.html"
    # The lone page has no template: the static stage skips it.
    assert stages.pop(lone) == ["title_relevance"]
    assert set(map(tuple, stages.values())) == {("static_noise", "title_relevance")}
    assert chain.stat("newscrawl/static_noise/skipped_no_template") == 1


def test_worker_crash_fails_only_its_page_and_the_crawl_goes_on(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'crash.db'}"
    hostile = build_page_item("solo.test", "world", 99)
    hostile.url = f"http://solo.test/world/{CRASH_MARK}.html"
    items = [build_page_item("solo.test", "world", n) for n in range(6)]
    items.insert(2, hostile)
    chain = run_chain(
        database_url,
        items,
        task=crash_on_marked_pages,
        NEWSCRAWL_EXTRACTION_WORKERS=2,
        NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED=False,
    )
    # Every page in flight when the worker died was retried, alone; only the hostile one
    # killed its worker again.
    assert set(read_articles(chain)) == {item.url for item in items} - {hostile.url}
    ((dropped, drop),) = chain.dropped
    assert dropped is hostile and isinstance(drop, PageExtractionFailed)
    assert hostile.article is None
    assert hostile.extraction_error is not None
    assert "worker process died twice" in hostile.extraction_error
    assert chain.stat("newscrawl/article_extraction/worker_crashed") == 2
    assert chain.stat("newscrawl/article_extraction/failed") == 1
    assert chain.stat("newscrawl/article_extraction/extracted") == 6
    assert chain.stat("newscrawl/sql_storage/extraction_errors") == 1
    with Session(chain.engine) as session:
        pages = {p.url: (p.status, p.error) for p in session.scalars(select(Page))}
    status, error = pages.pop(hostile.url)
    assert status == "failed" and error is not None and "worker process died twice" in error
    assert {status for status, _ in pages.values()} == {"extracted"}


def test_exception_in_the_worker_fails_the_page_with_its_reason(tmp_path: Path) -> None:
    refused = build_page_item("solo.test", "world", 1)
    refused.url = f"http://solo.test/world/{RAISE_MARK}.html"
    chain = run_chain(
        f"sqlite:///{tmp_path / 'raise.db'}",
        [refused, build_page_item("solo.test", "world", 2)],
        task=raise_on_marked_pages,
        NEWSCRAWL_EXTRACTION_WORKERS=1,
        NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED=False,
    )
    assert refused.extraction_error == f"ValueError('refused {refused.url}')"
    assert len(chain.stored) == 1
    assert chain.stat("newscrawl/article_extraction/worker_crashed") == 0
    assert chain.stat("newscrawl/article_extraction/failed") == 1


def test_close_waits_for_pages_in_flight_then_stops_the_workers() -> None:
    crawler = get_crawler(settings_dict={"NEWSCRAWL_EXTRACTION_WORKERS": 2})
    assert crawler.stats is not None
    pipeline = ArticleExtractionPipeline(workers=2, config=ExtractionConfig(), stats=crawler.stats)
    items = [build_page_item("solo.test", "world", n) for n in range(8)]
    seen: dict[str, Any] = {}

    async def main() -> None:
        pipeline.open_spider()
        tasks = [asyncio.create_task(pipeline.process_item(item)) for item in items]
        while not pipeline.pool.pages_in_flight:
            await asyncio.sleep(0)
        seen["workers"] = multiprocessing.active_children()
        await pipeline.close_spider()
        seen["done"] = [task.done() for task in tasks]

    asyncio.run(main())
    assert seen["done"] == [True] * len(items)
    for number, item in enumerate(items):
        assert item.article is not None
        assert build_story(number)[0] in item.article.text
    assert seen["workers"], "no worker process was running"
    assert not [process for process in seen["workers"] if process.is_alive()]
    assert pipeline.pool.executor is None


def test_pool_starts_its_workers_with_the_crawl_not_with_the_first_page() -> None:
    # A worker's first start takes about a second; when every page waits for the final flush,
    # a pool started by its first page would add that second to the end of the crawl.
    pool = ExtractionPool(2)
    pool.start()
    try:
        workers = [process for process in multiprocessing.active_children() if process.is_alive()]
        assert len(workers) == 2
        assert pool.pages_in_flight == 0
    finally:
        asyncio.run(pool.close())
    assert not [process for process in workers if process.is_alive()]


def test_zero_workers_extract_inline_and_a_negative_number_is_refused() -> None:
    inline = build_from_crawler(
        ArticleExtractionPipeline, get_crawler(settings_dict={"NEWSCRAWL_EXTRACTION_WORKERS": 0})
    )
    assert inline.pool is None
    # An error, not NotConfigured: without this pipeline storage would fail every page.
    with pytest.raises(CrawlArgumentError, match="EXTRACTION_WORKERS=-1: expected 0 or more"):
        build_from_crawler(
            ArticleExtractionPipeline,
            get_crawler(settings_dict={"NEWSCRAWL_EXTRACTION_WORKERS": -1}),
        )
    pipeline = build_from_crawler(
        ArticleExtractionPipeline, get_crawler(settings_dict={"NEWSCRAWL_EXTRACTION_WORKERS": 3})
    )
    assert pipeline.pool is not None
    assert pipeline.pool.workers == 3
    assert pipeline.pool.start_method in {"forkserver", "spawn"}


def is_running(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_exit_when_the_crawl_process_is_killed() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", POOL_SCRIPT],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as crawl:
        try:
            assert crawl.stdout is not None
            workers = [int(pid) for pid in crawl.stdout.readline().split()]
            assert len(workers) == 2 and all(map(is_running, workers))
        finally:
            crawl.send_signal(signal.SIGKILL)
    deadline = time.monotonic() + 30
    while any(map(is_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if is_running(pid)], "orphaned extraction workers"


def test_a_page_cut_at_the_element_cap_is_counted_and_still_stored(tmp_path: Path) -> None:
    big = build_page_item("solo.test", "world", 1)
    filler = "<li><a href='/t'>x</a></li>" * (MAX_ELEMENTS // 2 + 5_000)
    big.body = big.body.replace(b"</footer>", f"</footer><ul>{filler}</ul>".encode())
    items = [big, build_page_item("solo.test", "world", 2)]
    chain = run_chain(
        f"sqlite:///{tmp_path / 'big.db'}",
        items,
        NEWSCRAWL_EXTRACTION_WORKERS=1,
        NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED=False,
    )
    articles = read_articles(chain)
    assert set(articles) == {item.url for item in items}
    assert all(paragraph in articles[big.url].text for paragraph in build_story(1))
    assert chain.stat("newscrawl/article_extraction/page_truncated") == 1
    assert chain.stat("newscrawl/article_extraction/extracted") == 2
