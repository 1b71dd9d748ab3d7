from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

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
