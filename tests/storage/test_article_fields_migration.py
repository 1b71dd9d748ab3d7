"""Migration 0006: the article fields, on SQLite and PostgreSQL, up and down with rows in place."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta, timezone

from sqlalchemy import Engine, MetaData, inspect, select
from sqlalchemy.orm import Session

from newscrawl.storage.article_repository import ArticleRepository
from newscrawl.storage.migrations import downgrade_database, upgrade_database
from newscrawl.storage.models import Article
from tests.storage.test_repositories import make_article

NEW_COLUMNS = {"description", "site_name", "tags", "modified_at", "page_headline"}
STORED = datetime(2026, 11, 1, 8, 0, tzinfo=UTC)


def article_columns(engine: Engine) -> set[str]:
    return {column["name"] for column in inspect(engine).get_columns("articles")}


def insert_article_at_0005(engine: Engine, url: str) -> None:
    """A row as revision 0005 stored it, written through the reflected table."""
    metadata = MetaData()
    metadata.reflect(engine, only=["articles"])
    articles = metadata.tables["articles"]
    with engine.begin() as connection:
        connection.execute(articles.insert().values(
            url=url, title="Old story", text="An older story about the lighthouse.",
            html="<p>An older story about the lighthouse.</p>", authors=[], keywords=[],
            site="news.test", category="world", fetched_at=STORED, extracted_at=STORED,
            content_hash="0" * 64, extraction_method="single", config_version="1",
            word_count=6,
        ))


def test_upgrade_keeps_old_rows_and_their_search(empty_engine: Engine) -> None:
    upgrade_database(empty_engine, "0005")
    assert not NEW_COLUMNS & article_columns(empty_engine)
    insert_article_at_0005(empty_engine, "http://news.test/old")
    upgrade_database(empty_engine)
    assert article_columns(empty_engine) >= NEW_COLUMNS
    with Session(empty_engine) as session:
        old = session.scalars(select(Article)).one()
        assert old.tags == [] and old.description is None and old.modified_at is None
    repository = ArticleRepository(empty_engine)
    assert repository.search_articles("lighthouse") == ["http://news.test/old"]
    # The full-text triggers still index rows stored after the upgrade.
    new = make_article("http://news.test/new", title="Harbour", text="The harbour reopened.")
    repository.save_article(new, page_id=None)
    assert repository.search_articles("harbour") == ["http://news.test/new"]


def test_the_fields_round_trip(engine: Engine) -> None:
    berlin = timezone(timedelta(hours=2))
    record = dataclasses.replace(
        make_article("http://news.test/fields", title="Brücke", text="Die Brücke ist offen."),
        description="Die neue Brücke ist eröffnet.",
        site_name="Spreebote",
        tags=["Verkehr", "Berlin"],
        modified_at=datetime(2024, 6, 3, 14, 5, tzinfo=berlin),
        page_headline="Die Brücke über die Spree ist offen",
    )
    ArticleRepository(engine).save_article(record, page_id=None)
    [stored] = ArticleRepository(engine).load_articles(["http://news.test/fields"])
    assert stored.description == "Die neue Brücke ist eröffnet."
    assert stored.site_name == "Spreebote"
    assert stored.tags == ["Verkehr", "Berlin"]
    assert stored.page_headline == "Die Brücke über die Spree ist offen"
    assert stored.modified_at == datetime(2024, 6, 3, 12, 5, tzinfo=UTC)


def test_downgrade_drops_the_columns_and_keeps_the_rows(engine: Engine) -> None:
    record = dataclasses.replace(
        make_article("http://news.test/a", title="A", text="Some text."), tags=["x"]
    )
    ArticleRepository(engine).save_article(record, page_id=None)
    downgrade_database(engine, "0005")
    assert not NEW_COLUMNS & article_columns(engine)
    with engine.connect() as connection:
        urls = connection.exec_driver_sql("SELECT url FROM articles").scalars().all()
    assert urls == ["http://news.test/a"]
    upgrade_database(engine)
    assert article_columns(engine) >= NEW_COLUMNS
