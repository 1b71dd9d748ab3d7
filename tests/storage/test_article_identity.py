"""One row per article: query variants and canonical URLs merge, syndicated copies link."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import Engine, event, select, text
from sqlalchemy.orm import Session

from newscrawl.categories import site_from_url
from newscrawl.storage.article_identity import (
    ArticleIdentity,
    StoredIdentity,
    choose_canonical,
    resolve_identity,
)
from newscrawl.storage.article_repository import ArticleRepository, ArticleWrite
from newscrawl.storage.batch_writer import prepare_batch
from newscrawl.storage.models import Article
from tests.storage.test_repositories import make_article, make_page

STORY = "The harbour reopened on Monday after a week of repairs to the old quay."
OTHER = "The council approved the new tramline budget after a long debate."


def save(engine: Engine, url: str, body: str, canonical: str | None = None) -> int:
    page = replace(make_page(1), url=url, site=site_from_url(url))
    article = replace(
        make_article(url, title="Harbour", text=body), canonical_url=canonical,
        site=site_from_url(url),
    )
    return ArticleRepository(engine).save_article(article, page_id=None, page=page)


def stored_rows(engine: Engine) -> list[tuple[int, str, int | None]]:
    with Session(engine) as session:
        rows = session.execute(select(Article.id, Article.url, Article.duplicate_of))
        return sorted((row.id, row.url, row.duplicate_of) for row in rows)


def test_query_variant_with_the_same_text_is_one_article(engine: Engine) -> None:
    first = save(engine, "http://news.test/world/x.html?src=rss", STORY)
    second = save(engine, "http://news.test/world/x.html", STORY)
    assert first == second
    assert stored_rows(engine) == [(first, "http://news.test/world/x.html", None)]
    # Once stored under the plain URL, the tracked variant does not take it back.
    assert save(engine, "http://news.test/world/x.html?src=rss", STORY) == first
    assert stored_rows(engine) == [(first, "http://news.test/world/x.html", None)]


def test_query_variant_with_another_text_is_another_article(engine: Engine) -> None:
    save(engine, "http://news.test/world/list.html?page=1", STORY)
    save(engine, "http://news.test/world/list.html?page=2", OTHER)
    assert len(stored_rows(engine)) == 2


def test_the_canonical_url_wins(engine: Engine) -> None:
    canonical = "http://news.test/world/x.html"
    first = save(engine, "http://news.test/world/x.html?src=rss", STORY, canonical)
    # Another URL of the story (its AMP page) naming the same canonical URL: the one row.
    second = save(engine, "http://news.test/amp/x.html", STORY, canonical)
    # The canonical page itself, its text updated meanwhile: still the one row.
    third = save(engine, canonical, STORY + " Updated.", canonical)
    assert first == second == third
    assert stored_rows(engine) == [(first, canonical, None)]


def test_a_canonical_naming_the_home_page_or_another_site_is_not_trusted() -> None:
    url = "http://news.test/world/x.html"
    assert choose_canonical(url, "http://news.test/") == url
    assert choose_canonical(url, "http://wire.test/world/x.html") == url
    assert choose_canonical(url, "http://www.news.test/world/x.html") == (
        "http://www.news.test/world/x.html"
    )


def test_a_canonical_naming_another_article_does_not_overwrite_it() -> None:
    stored = [StoredIdentity(1, "http://news.test/world/a.html", "hash-a", None)]
    identity = resolve_identity(
        "http://news.test/world/b.html", "http://news.test/world/a.html", "hash-b", stored
    )
    assert identity == ArticleIdentity("http://news.test/world/b.html", None, None)


def test_syndicated_copies_are_linked_not_merged(engine: Engine) -> None:
    original = save(engine, "http://news.test/world/x.html", STORY)
    copy = save(engine, "http://wire.test/stories/123.html", STORY)
    again = save(engine, "http://other.test/harbour.html", STORY)
    save(engine, "http://news.test/world/y.html", OTHER)
    rows = stored_rows(engine)
    assert len(rows) == 4
    assert {url: duplicate for _, url, duplicate in rows} == {
        "http://news.test/world/x.html": None,
        "http://wire.test/stories/123.html": original,
        "http://other.test/harbour.html": original,
        "http://news.test/world/y.html": None,
    }
    assert copy != original != again
    # The README's way to list originals only, and the copies of one article.
    with engine.connect() as connection:
        originals = connection.execute(
            text("SELECT count(*) FROM articles WHERE duplicate_of IS NULL")
        ).scalar_one()
        copies = connection.execute(
            text(
                "SELECT c.url FROM articles AS c JOIN articles AS o ON c.duplicate_of = o.id"
                " WHERE o.url = :url ORDER BY c.url"
            ),
            {"url": "http://news.test/world/x.html"},
        ).scalars().all()
    assert originals == 2
    assert copies == ["http://other.test/harbour.html", "http://wire.test/stories/123.html"]


def test_recrawled_url_keeps_its_row_and_its_link(engine: Engine) -> None:
    original = save(engine, "http://news.test/world/x.html", STORY)
    copy = save(engine, "http://wire.test/stories/123.html", STORY)
    assert save(engine, "http://wire.test/stories/123.html", STORY) == copy
    assert stored_rows(engine) == [
        (original, "http://news.test/world/x.html", None),
        (copy, "http://wire.test/stories/123.html", original),
    ]


# (URL, canonical URL, text): query variants, canonical URLs, copies and re-crawls, in one order.
MIXED_BATCH = [
    ("http://news.test/world/x.html?src=rss", None, STORY),
    ("http://news.test/world/x.html", None, STORY),
    ("http://news.test/world/x.html?src=rss", None, STORY),
    ("http://wire.test/stories/123.html", None, STORY),
    ("http://news.test/world/y.html?src=rss", "http://news.test/world/y.html", OTHER),
    ("http://news.test/amp/y.html", "http://news.test/world/y.html", OTHER),
    ("http://news.test/world/y.html", "http://news.test/world/y.html", OTHER + " Updated."),
    ("http://other.test/harbour.html", None, STORY),
    ("http://wire.test/stories/123.html", None, STORY),
    ("http://news.test/world/list.html?page=2", None, OTHER),
]


def batch_writes(entries: list[tuple[str, str | None, str]]) -> list[ArticleWrite]:
    writes = []
    for number, (url, canonical, body) in enumerate(entries):
        page = replace(make_page(number), url=f"{url}#fetch-{number}", site=site_from_url(url))
        article = replace(
            make_article(url, title="Harbour", text=body),
            canonical_url=canonical,
            site=site_from_url(url),
        )
        writes.append(ArticleWrite(article=article, page_id=None, page=page))
    return writes


def stored_articles(engine: Engine) -> set[tuple[str, str, str | None]]:
    """(URL, text hash, URL of the original) of every article: ids differ between runs."""
    with Session(engine) as session:
        columns = (Article.id, Article.url, Article.content_hash, Article.duplicate_of)
        rows = session.execute(select(*columns)).all()
    urls = {row.id: row.url for row in rows}
    return {(row.url, row.content_hash, urls.get(row.duplicate_of)) for row in rows}


def test_a_batch_reads_its_identities_once_and_stores_what_one_by_one_stores(
    engine: Engine,
) -> None:
    for write in batch_writes(MIXED_BATCH):
        with Session(engine) as session, session.begin():
            write(session)
    one_by_one = stored_articles(engine)
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM articles"))
        connection.execute(text("DELETE FROM pages"))
    reads: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        # Identity lookups read the texts' hashes; the ids of rows just inserted do not.
        if statement.startswith("SELECT") and "articles.content_hash" in statement:
            reads.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        writes = batch_writes(MIXED_BATCH)
        with Session(engine) as session, session.begin():
            prepare_batch(session, list(writes))
            for write in writes:
                write(session)
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert stored_articles(engine) == one_by_one
    assert len(one_by_one) == 5
    # One query for the batch, none per article.
    assert len(reads) == 1
