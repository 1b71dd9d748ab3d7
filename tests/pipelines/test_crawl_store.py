"""One store per crawl: one engine, migrated once, shared by every component; and an end-of-crawl
flush whose small groups share write batches instead of waiting one batch delay each."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from scrapy.exceptions import DontCloseSpider
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from newscrawl.demo import DemoNetworkServer
from newscrawl.pipelines.crawl_store import CrawlStore
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.models import Article, CrawlRun
from tests.pipelines.chain import PipelineChain, build_test_crawler
from tests.pipelines.page_factory import build_page_item

REPO_ROOT = Path(__file__).resolve().parents[2]
DELAYS_KEY = "newscrawl/store/delays"
BATCHES_KEY = "newscrawl/store/batches"

# `scrapy crawl` as a user runs it, with the engine factory and the migration step wrapped to
# count their calls; the counts are printed when the process exits.
COUNTING_CRAWL = """
import atexit
import sys

import newscrawl.storage.engine as engine_module
import newscrawl.storage.migrations as migrations

counts = {"engines": 0, "migrations": 0}
create_engine, upgrade_database = engine_module.create_engine, migrations.upgrade_database

def counting_create_engine(*args, **kwargs):
    counts["engines"] += 1
    return create_engine(*args, **kwargs)

def counting_upgrade_database(*args, **kwargs):
    counts["migrations"] += 1
    return upgrade_database(*args, **kwargs)

engine_module.create_engine = counting_create_engine
migrations.upgrade_database = counting_upgrade_database
atexit.register(
    lambda: print("STORE_COUNTS", counts["engines"], counts["migrations"], file=sys.stderr)
)
from scrapy.cmdline import execute
execute(sys.argv[1:])
"""


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


def test_a_crawl_creates_and_migrates_one_engine(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    feeds = tmp_path / "feeds.txt"
    feeds.write_text("\n".join(network.feed_lines()[:2]) + "\n", encoding="utf-8")
    database_url = f"sqlite:///{tmp_path / 'news.db'}"
    done = subprocess.run(
        [
            sys.executable, "-c", COUNTING_CRAWL, "scrapy", "crawl", "rss",
            "-a", f"feeds={feeds}",
            "-s", f"NEWSCRAWL_DATABASE_URL={database_url}",
            "-s", "NEWSCRAWL_SSRF_ALLOWLIST=127.0.0.1",
            # The progress log reads the database too.
            "-s", "NEWSCRAWL_PROGRESS_INTERVAL=0.2",
            "-s", "TELNETCONSOLE_ENABLED=False",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    match = re.search(r"^STORE_COUNTS (\d+) (\d+)$", done.stderr, re.MULTILINE)
    assert match is not None, done.stderr[-3000:]
    engines, migrations = int(match.group(1)), int(match.group(2))
    # Every component used the database: the crawl stored articles and recorded its run.
    engine = create_database_engine(database_url)
    try:
        with Session(engine) as session:
            articles = session.scalar(select(func.count()).select_from(Article))
            runs = list(session.scalars(select(CrawlRun)))
    finally:
        engine.dispose()
    assert articles and articles > 0
    assert len(runs) == 1 and runs[0].finish_reason == "finished"
    assert (engines, migrations) == (1, 1)


def test_components_of_one_crawler_share_one_store(database_url: str) -> None:
    chain = PipelineChain(build_test_crawler(database_url))

    async def main() -> None:
        await chain.open()
        try:
            assert chain.buffer.store is chain.storage.store
            assert chain.buffer.engine is chain.storage.engine
            assert chain.buffer.writer is chain.storage.writer
            assert chain.buffer.spooler is chain.storage.spooler
        finally:
            await chain.close()

    asyncio.run(main())
    assert chain.storage.store is CrawlStore.from_crawler(chain.crawler)
    # Both pipelines closed: the last close let the engine go.
    assert chain.storage.store.engine is None


def test_final_flush_of_many_small_groups_shares_write_batches(database_url: str) -> None:
    groups = 120
    items = [build_page_item("many.test", f"section{number}", number) for number in range(groups)]
    seen: dict[str, int] = {}
    chain = PipelineChain(build_test_crawler(database_url))

    async def main() -> None:
        await chain.open()
        try:
            # Each page alone in its group: all are buffered, pending until the crawl ends.
            assert await asyncio.gather(*(chain.process(item) for item in items)) == [None] * groups
            seen["delays"] = chain.stat(DELAYS_KEY)
            seen["batches"] = chain.stat(BATCHES_KEY)
            with pytest.raises(DontCloseSpider):
                chain.buffer.on_spider_idle()
            await chain.wait_for_flushes()
            seen["delays"] = chain.stat(DELAYS_KEY) - seen["delays"]
            seen["batches"] = chain.stat(BATCHES_KEY) - seen["batches"]
        finally:
            await chain.close()

    asyncio.run(main())
    assert chain.stat("newscrawl/neighbour_buffer/groups_flushed_single") == groups
    assert chain.stat("newscrawl/sql_storage/articles_stored") == groups
    # Once idle, nothing else is coming: no write of the flush waits the batch delay (one group
    # at a time waited one per group, 120; 16 at a time still one per round of groups).
    assert seen["delays"] == 0
    # Writes arriving while a batch commits still share the next one.
    assert seen["batches"] < groups / 2
