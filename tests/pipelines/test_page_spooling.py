"""The pipelines spool fetched pages the database cannot take, and the next crawl writes them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scrapy.exceptions import DontCloseSpider
from sqlalchemy import select
from sqlalchemy.orm import Session

from newscrawl.pipelines.errors import PageSpooled
from newscrawl.pipelines.page_items import build_page_record
from newscrawl.pipelines.page_spooling import PageSpooler, resolve_spool_base
from newscrawl.storage.models import Article, Page
from tests.pipelines.chain import PipelineChain, build_test_crawler
from tests.pipelines.page_factory import build_page_item


def test_unopenable_database_spools_pages_and_stops_once(tmp_path: Path) -> None:
    # SQLite cannot create a file in a directory that does not exist: a transient error.
    database_url = f"sqlite:///{tmp_path / 'no-such-dir' / 'news.db'}"
    chain = PipelineChain(
        build_test_crawler(database_url, NEWSCRAWL_SPOOL_DIR=str(tmp_path / "spool"))
    )
    items = [build_page_item("example.org", "world", number) for number in range(3)]

    async def main() -> None:
        await chain.open()  # must not raise: the crawl stops instead
        try:
            for item in items:
                await chain.process(item)
        finally:
            await chain.close()

    asyncio.run(main())

    assert chain.stat("newscrawl/spool/crawl_stopped") == 1
    assert chain.stat("newscrawl/spool/spooled") == 3
    assert [type(drop) for _, drop in chain.dropped] == [PageSpooled] * 3
    spooled = list((tmp_path / "spool").glob("*/*.page.json"))
    assert len(spooled) == 3


def test_next_crawl_replays_the_spool_then_extracts_every_page(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'news.db'}"
    crawler = build_test_crawler(
        database_url, NEWSCRAWL_SPOOL_DIR=str(tmp_path / "spool"), NEWSCRAWL_NEIGHBOURS=3
    )
    # What an earlier crawl left when its database went down.
    earlier = PageSpooler.from_crawler(build_test_crawler(
        database_url, NEWSCRAWL_SPOOL_DIR=str(tmp_path / "spool")
    ))
    items = [build_page_item("example.org", "world", number) for number in range(4)]
    for item in items:
        earlier.spool.spool_page(build_page_record(item))
    chain = PipelineChain(crawler)

    async def main() -> None:
        await chain.open()
        try:
            # The spider goes idle: the buffer flushes every pending page.
            with pytest.raises(DontCloseSpider):
                chain.buffer.on_spider_idle()
            await chain.wait_for_flushes()
        finally:
            await chain.close()

    asyncio.run(main())

    assert chain.stat("newscrawl/spool/replayed") == 4
    assert earlier.spool.list_entries() == []
    with Session(chain.engine) as session:
        pages = {page.url: page.status for page in session.scalars(select(Page))}
        articles = [article.url for article in session.scalars(select(Article))]
    assert pages == {item.url: "extracted" for item in items}
    assert sorted(articles) == sorted(item.url for item in items)


def test_spool_sits_next_to_the_sqlite_file_by_default(tmp_path: Path) -> None:
    base = resolve_spool_base(None, f"sqlite:///{tmp_path / 'news.db'}")
    assert base == tmp_path.resolve() / ".newscrawl-spool"
    assert resolve_spool_base("/srv/spool", "postgresql://db/x") == Path("/srv/spool")

