"""The same hostile records, written to SQLite and PostgreSQL, come back the same (issue 21).

Written through the BatchWriter as a crawl writes them, each batch mixing the hostile rows
with ordinary ones that must be stored too.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from newscrawl.storage.article_repository import ArticleRepository, write_article
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.models import Article, Feed, Page
from newscrawl.storage.page_repository import write_admission, write_failed_page
from newscrawl.storage.records import MAX_GROUP_KEY_CHARS, build_group_key
from tests.database_support import DIALECTS, MigratedDatabases
from tests.storage.test_repositories import make_article, make_page

LONG_CATEGORY = "c" * 300
HUGE_CATEGORY = "ü" * 3000
LONG_URL = "http://news.test/image/" + "a" * 3000 + ".jpg"
LONG_ETAG = '"' + "e" * 600 + '"'
# ~170,000 distinct words, 1.5 MB: over PostgreSQL's 1 MB tsvector limit when indexed whole.
HUGE_TEXT = "opening words " + " ".join(f"w{number:x}q" for number in range(170_000))


def hostile_page(number: int) -> Any:
    page = make_page(number, category=LONG_CATEGORY)
    return dataclasses.replace(
        page,
        title="Nul\x00here \x1b[31mred\x1b[0m \x07bell\x9b2J\r\nnext\ttab",
        authors=["Ann\x00 Writer", "Bad \ud83d surrogate"],
        keywords=["cafe\u0301"],
    )


def hostile_article(url: str) -> Any:
    article = make_article(url, title="Nul\x00title \x1b]0;owned\x07done", text=HUGE_TEXT)
    return dataclasses.replace(
        article,
        category=LONG_CATEGORY,
        image_url="http://news.test/\ud83d.jpg",
        canonical_url=LONG_URL,
        image_caption="pair \ud83d\ude00 joined",
        keywords=["lone \udc00"],
    )


def write_everything(engine: Engine) -> list[Any]:
    """The hostile set and its innocent neighbours, in shared batches; every result."""
    writer = BatchWriter(engine, batch_size=50, delay=0.5)
    feeds = FeedRepository(engine)

    async def main() -> list[Any]:
        writes: list[Any] = []
        for number in range(4):
            writes.append(partial(write_admission, page=make_page(number), count_limit=10))
        writes.append(partial(write_admission, page=hostile_page(10), count_limit=10))
        huge_group = dataclasses.replace(make_page(11), category=HUGE_CATEGORY)
        writes.append(partial(write_admission, page=huge_group, count_limit=10))
        writes.append(
            partial(
                write_failed_page, reason="bad \x00 reason \ud800", page_id=None, page=make_page(12)
            )
        )
        hostile = hostile_article("http://news.test/world/huge.html")
        writes.append(partial(write_article, article=hostile, page_id=None, page=make_page(13)))
        for number in range(20, 23):
            ordinary = make_article(
                f"http://news.test/world/ordinary-{number}.html", title="Calm", text="quiet day"
            )
            writes.append(partial(write_article, article=ordinary, page_id=None, page=None))
        results = await asyncio.gather(
            *(writer.write(write) for write in writes), return_exceptions=True
        )
        await writer.close()
        return results

    results = asyncio.run(main())
    feeds.register_feed("http://news.test/feed.xml", site="news.test", category=LONG_CATEGORY)
    now = datetime(2026, 11, 26, tzinfo=UTC)
    feeds.record_fetched(
        "http://news.test/feed.xml",
        polled_at=now,
        next_poll_at=now + timedelta(hours=1),
        interval_seconds=3600,
        status=200,
        etag=LONG_ETAG,
        last_modified="Thu\x00, 26 Nov 2026",
        entries=1,
        new_entries=1,
    )
    return results


def read_back(engine: Engine) -> dict[str, Any]:
    """What a reader gets back: every stored column but ids and clock times."""
    skip = {"id", "page_id", "updated_at", "body", "extracted_at"}
    with Session(engine) as session:
        pages = {
            row.url: {k: v for k, v in vars(row).items() if k not in skip and not k.startswith("_")}
            for row in session.scalars(select(Page))
        }
        articles = {
            row.url: {k: v for k, v in vars(row).items() if k not in skip and not k.startswith("_")}
            for row in session.scalars(select(Article))
        }
        feeds = {
            row.url: (row.category, row.etag, row.last_modified)
            for row in session.scalars(select(Feed))
        }
    search = ArticleRepository(engine)
    return {
        "pages": pages,
        "articles": articles,
        "feeds": feeds,
        "search_opening": search.search_articles("opening"),
        "search_calm": sorted(search.search_articles("calm")),
    }


@pytest.fixture
def stored(tmp_path: Path, migrated_databases: MigratedDatabases) -> dict[str, dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for dialect in DIALECTS:
        engine = create_database_engine(migrated_databases.empty_url(dialect, tmp_path))
        try:
            results = write_everything(engine)
            assert [r for r in results if isinstance(r, BaseException)] == [], dialect
            seen[dialect] = read_back(engine)
        finally:
            engine.dispose()
    return seen


def test_both_backends_store_the_same_hostile_records(
    stored: dict[str, dict[str, Any]],
) -> None:
    sqlite, postgresql = stored["sqlite"], stored["postgresql"]
    assert sqlite == postgresql
    pages, articles = postgresql["pages"], postgresql["articles"]
    # Every innocent row of the shared batches is there, and every hostile one.
    assert len(pages) == 4 + 4 and len(articles) == 4
    hostile = pages["http://news.test/" + LONG_CATEGORY + "/story-10.html"]
    assert hostile["title"] == "Nulhere red bell\nnext\ttab"
    assert hostile["authors"] == ["Ann Writer", "Bad \ufffd surrogate"]
    assert hostile["keywords"] == ["caf\u00e9"]  # NFC
    assert hostile["category"] == LONG_CATEGORY
    huge_group = pages["http://news.test/world/story-11.html"]
    assert huge_group["category"] == HUGE_CATEGORY
    assert len(huge_group["group_key"]) == MAX_GROUP_KEY_CHARS
    assert huge_group["group_key"] == build_group_key("news.test", HUGE_CATEGORY)
    failed = pages["http://news.test/world/story-12.html"]
    assert (failed["status"], failed["error"]) == ("failed", "bad  reason \ufffd")
    # One row per article: the page's canonical URL (same site) is the article's URL.
    article = articles[LONG_URL]
    assert article["title"] == "Nultitle done"
    assert article["text"] == HUGE_TEXT
    assert article["image_url"] == "http://news.test/\ufffd.jpg"
    assert article["canonical_url"] == LONG_URL
    assert article["image_caption"] == "pair \U0001f600 joined"
    assert article["keywords"] == ["lone \ufffd"]
    assert article["category"] == LONG_CATEGORY
    assert postgresql["feeds"]["http://news.test/feed.xml"] == (
        LONG_CATEGORY, LONG_ETAG, "Thu, 26 Nov 2026"
    )
    # The huge article is searchable by its opening words on both backends.
    assert postgresql["search_opening"] == [LONG_URL]
    assert len(postgresql["search_calm"]) == 3
