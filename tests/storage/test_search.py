"""search_articles(): plain words never raise, on both backends (issue 21, finding 9)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from newscrawl.storage.article_repository import ArticleRepository
from tests.storage.test_repositories import make_article

# Each of these raised OperationalError on SQLite when passed to FTS5 as syntax.
PROBES = [
    "e-mail", "1.5", "c++", "a-b", '"', "", "   ", "AND", "OR", "NOT", "NEAR(", "NEAR(a b",
    "*", "a*", "^", "(", ")", "title:", "-", "+", "'", "\\", "a AND", "AND b", '"unclosed',
    "col:word", "{a b}", "x:y:z", "a OR", "!", "&", "|", "<->", ":*", "\x00", "\ud83d",
    "über-straße", "日本語", "a" * 2000,
]


@pytest.fixture
def articles(engine: Engine) -> ArticleRepository:
    repository = ArticleRepository(engine)
    for url, title, text in [
        ("http://news.test/mail", "E-mail outage", "The e-mail service fell over."),
        ("http://news.test/cpp", "C++ release", "Version 1.5 of the a-b tool ships."),
        ("http://news.test/and", "AND gates", "Logic AND more near the harbour."),
    ]:
        repository.save_article(make_article(url, title=title, text=text), page_id=None)
    return repository


def test_no_plain_query_raises(articles: ArticleRepository) -> None:
    raised: dict[str, Exception] = {}
    for probe in PROBES:
        try:
            assert isinstance(articles.search_articles(probe), list)
        except Exception as error:
            raised[probe] = error
    assert raised == {}


def test_plain_words_find_their_articles(articles: ArticleRepository) -> None:
    assert articles.search_articles("e-mail") == ["http://news.test/mail"]
    assert articles.search_articles("1.5") == ["http://news.test/cpp"]
    assert articles.search_articles("a-b tool") == ["http://news.test/cpp"]
    assert articles.search_articles("AND") == ["http://news.test/and"]
    assert articles.search_articles("harbour logic") == ["http://news.test/and"]
    assert articles.search_articles("harbour e-mail") == []
    assert articles.search_articles("") == []


def test_raw_queries_use_the_backend_syntax(articles: ArticleRepository, engine: Engine) -> None:
    either = "outage | release" if engine.dialect.name == "postgresql" else "outage OR release"
    assert sorted(articles.search_articles(either, raw=True)) == [
        "http://news.test/cpp",
        "http://news.test/mail",
    ]
    with pytest.raises(ValueError, match="invalid"):
        articles.search_articles("NEAR(" if engine.dialect.name == "sqlite" else "a &", raw=True)
