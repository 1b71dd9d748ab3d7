from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, event, func, select
from sqlalchemy.orm import Session

from newscrawl.storage.article_repository import ArticleRepository, compute_content_hash
from newscrawl.storage.models import Article, Feed, Page, Site, Template
from newscrawl.storage.page_repository import (
    PAGE_UPSERT,
    PageRepository,
    upsert_page,
    write_admission,
)
from newscrawl.storage.records import ArticleRecord, LearnedTemplate, PageRecord

FETCHED = datetime(2026, 11, 20, 8, 30, tzinfo=UTC)


def make_page(number: int, *, category: str = "world", body: bytes | None = None) -> PageRecord:
    return PageRecord(
        url=f"http://news.test/{category}/story-{number}.html",
        site="news.test",
        category=category,
        body=body if body is not None else f"<html><p>story {number}</p></html>".encode(),
        fetched_at=FETCHED,
        title=f"Story {number}",
        feed_url=f"http://news.test/{category}/rss.xml",
        published_at=FETCHED - timedelta(hours=1),
        authors=["Ann Writer"],
        keywords=["politics"],
    )


def make_article(url: str, *, title: str, text: str) -> ArticleRecord:
    return ArticleRecord(
        url=url,
        title=title,
        text=text,
        html=f"<p>{text}</p>",
        site="news.test",
        category="world",
        fetched_at=FETCHED,
        extracted_at=FETCHED + timedelta(minutes=1),
        extraction_method="neighbours",
        config_version="default-1",
        published_at=FETCHED - timedelta(hours=1),
        authors=["Ann Writer"],
        language="en",
    )


def fixed_template(pages: list[tuple[bytes, str | None]]) -> LearnedTemplate:
    return LearnedTemplate(b"template:%d" % len(pages), 1, len(pages), "default-1")


def count(engine: Engine, model: type) -> int:
    with Session(engine) as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def test_admit_page_stores_it_compressed_and_counts_the_group(engine: Engine) -> None:
    repository = PageRepository(engine)
    first = repository.admit_page(make_page(1), count_limit=100)
    second = repository.admit_page(make_page(2), count_limit=100)
    other = repository.admit_page(make_page(3, category="sport"), count_limit=100)
    assert (first.pending_in_group, second.pending_in_group, other.pending_in_group) == (1, 2, 1)
    assert first.template is None
    with Session(engine) as session:
        stored = session.scalars(select(Page).where(Page.id == first.page_id)).one()
        assert stored.body != make_page(1).body
        assert stored.status == "pending"
        assert stored.fetched_at == FETCHED
        assert session.scalar(select(func.count()).select_from(Site)) == 1
        assert session.scalar(select(func.count()).select_from(Feed)) == 2
    (loaded,) = repository.load_pages([first.page_id])
    assert loaded.record == make_page(1)


def test_recrawled_page_updates_its_row(engine: Engine) -> None:
    repository = PageRepository(engine)
    first = repository.admit_page(make_page(1), count_limit=100)
    again = repository.admit_page(make_page(1, body=b"<p>updated</p>"), count_limit=100)
    assert again.page_id == first.page_id
    assert count(engine, Page) == 1
    (loaded,) = repository.load_pages([first.page_id])
    assert loaded.record.body == b"<p>updated</p>"


def test_learn_template_stores_one_template_per_group(engine: Engine) -> None:
    repository = PageRepository(engine)
    for number in range(4):
        repository.admit_page(make_page(number), count_limit=100)
    learned = repository.learn_template(
        "news.test|world", fixed_template, max_pages=3, min_pages=2, replaces=None
    )
    assert learned is not None
    assert (learned.template, learned.page_count) == (b"template:3", 3)
    # A second learner that saw no template gets the stored one instead of learning again.
    again = repository.learn_template(
        "news.test|world", lambda pages: fixed_template([]), max_pages=3, min_pages=2, replaces=None
    )
    assert again == learned
    relearned = repository.learn_template(
        "news.test|world", fixed_template, max_pages=10, min_pages=2, replaces=learned.learned_at
    )
    assert relearned is not None and relearned.page_count == 4
    assert count(engine, Template) == 1
    admission = repository.admit_page(make_page(9), count_limit=100)
    assert admission.template == relearned
    assert admission.pages_since_template == 1


def test_admission_leaves_out_the_blob_of_a_template_the_caller_holds(engine: Engine) -> None:
    repository = PageRepository(engine)
    for number in range(3):
        repository.admit_page(make_page(number), count_limit=100)
    learned = repository.learn_template(
        "news.test|world", fixed_template, max_pages=3, min_pages=2, replaces=None
    )
    assert learned is not None
    with Session(engine) as session, session.begin():
        known = write_admission(
            session, make_page(7), count_limit=100, known_templates={learned.key}
        )
        other = write_admission(
            session, make_page(8), count_limit=100, known_templates={(learned.group_key, FETCHED)}
        )
    assert known.template == replace(learned, template=None)
    assert known.pages_since_template == 1
    # Another version (e.g. re-learned by another worker) comes with its blob.
    assert other.template == learned
    assert other.pages_since_template == 2


def test_template_pages_are_the_pages_it_was_learned_from(engine: Engine) -> None:
    repository = PageRepository(engine)
    ids = [repository.admit_page(make_page(number), count_limit=100).page_id for number in range(4)]
    learned = repository.learn_template(
        "news.test|world", fixed_template, max_pages=3, min_pages=2, replaces=None
    )
    assert learned is not None
    later = repository.admit_page(make_page(5), count_limit=100).page_id
    repository.admit_page(make_page(6, category="sport"), count_limit=100)
    # The newest three of the group when it was learned: not the oldest, not one added since.
    assert repository.list_template_pages(learned) == set(ids[1:])
    assert later not in repository.list_template_pages(learned)


def test_learn_template_needs_min_pages(engine: Engine) -> None:
    repository = PageRepository(engine)
    repository.admit_page(make_page(1), count_limit=100)
    assert (
        repository.learn_template(
            "news.test|world", fixed_template, max_pages=10, min_pages=2, replaces=None
        )
        is None
    )
    assert count(engine, Template) == 0


def test_pending_groups_and_failed_pages(engine: Engine) -> None:
    repository = PageRepository(engine)
    ids = [repository.admit_page(make_page(n), count_limit=100).page_id for n in range(3)]
    repository.admit_page(make_page(7, category="sport"), count_limit=100)
    repository.mark_page_failed(ids[0], "no text")
    assert repository.count_pending_pages() == {"news.test|sport": 1, "news.test|world": 2}
    pending = repository.load_pending_pages("news.test|world", after_id=ids[1])
    assert [page.id for page in pending] == [ids[2]]
    everything = repository.load_pending_pages("news.test|world", limit=1)
    assert [page.id for page in everything] == [ids[1]]


def test_saved_article_is_updated_not_duplicated(engine: Engine) -> None:
    pages = PageRepository(engine)
    articles = ArticleRepository(engine)
    page_id = pages.admit_page(make_page(1), count_limit=100).page_id
    url = make_page(1).url
    old = make_article(url, title="Old", text="first text")
    first = articles.save_article(old, page_id=page_id)
    second = articles.save_article(
        make_article(url, title="New", text="second text here"), page_id=page_id
    )
    assert first == second
    assert count(engine, Article) == 1
    (stored,) = articles.load_articles([url])
    assert (stored.title, stored.word_count, stored.page_id) == ("New", 3, page_id)
    assert stored.content_hash == compute_content_hash("second  text\nhere")
    assert stored.authors == ["Ann Writer"]
    assert stored.extracted_at == FETCHED + timedelta(minutes=1)
    assert pages.count_pending_pages() == {}


def test_word_count_counts_unspaced_scripts(engine: Engine) -> None:
    pages = PageRepository(engine)
    articles = ArticleRepository(engine)
    page_id = pages.admit_page(make_page(1), count_limit=100).page_id
    text = "東京では桜が咲いています。明日も晴れるでしょう。"
    articles.save_article(make_article(make_page(1).url, title="桜", text=text), page_id=page_id)
    (stored,) = articles.load_articles([make_page(1).url])
    assert stored.word_count > len(text.split()) == 1


def test_article_without_buffered_page_stores_its_page(engine: Engine) -> None:
    articles = ArticleRepository(engine)
    page = make_page(5)
    articles.save_article(make_article(page.url, title="T", text="x"), page_id=None, page=page)
    with Session(engine) as session:
        stored = session.scalars(select(Page)).one()
        assert stored.status == "extracted"
        assert session.scalars(select(Article.page_id)).one() == stored.id


def test_full_text_search_follows_inserts_and_updates(engine: Engine) -> None:
    articles = ArticleRepository(engine)
    articles.save_article(
        make_article("http://news.test/a", title="Harbour strike", text="Dockers stop work."),
        page_id=None,
    )
    articles.save_article(
        make_article("http://news.test/b", title="Election night", text="Votes counted."),
        page_id=None,
    )
    assert articles.search_articles("dockers") == ["http://news.test/a"]
    assert articles.search_articles("election") == ["http://news.test/b"]
    articles.save_article(
        make_article("http://news.test/a", title="Harbour reopens", text="Ships sail again."),
        page_id=None,
    )
    assert articles.search_articles("dockers") == []
    assert articles.search_articles("ships") == ["http://news.test/a"]


def test_concurrent_learners_learn_a_group_once(engine: Engine) -> None:
    repository = PageRepository(engine)
    for number in range(4):
        repository.admit_page(make_page(number), count_limit=100)
    calls: list[int] = []
    inside = threading.Event()

    def slow_learn(pages: list[tuple[bytes, str | None]]) -> LearnedTemplate:
        calls.append(len(pages))
        inside.set()
        time.sleep(0.3)  # hold the group lock while the other worker asks
        return fixed_template(pages)

    results: list[object] = []

    def learn() -> None:
        results.append(
            repository.learn_template(
                "news.test|world", slow_learn, max_pages=10, min_pages=2, replaces=None
            )
        )

    first = threading.Thread(target=learn)
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=learn)
    second.start()
    first.join(30)
    second.join(30)
    assert calls == [4]
    assert len(results) == 2 and results[0] == results[1]
    assert count(engine, Template) == 1


def test_prepared_upsert_refuses_a_row_with_missing_columns(engine: Engine) -> None:
    # A missing column would silently become NULL on conflict.
    with Session(engine) as session, pytest.raises(ValueError, match="needs exactly the columns"):
        PAGE_UPSERT.execute(session, {"url": "http://news.test/world/x.html"})


def test_a_transaction_writes_its_site_and_feed_rows_once(engine: Engine) -> None:
    statements: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        with Session(engine) as session, session.begin():
            ids = [upsert_page(session, make_page(number)) for number in range(5)]
        # The next transaction writes them again: what one wrote may have been rolled back.
        with Session(engine) as session, session.begin():
            upsert_page(session, make_page(5))
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert len(set(ids)) == 5
    inserts = [s.split("(")[0].split()[-1] for s in statements if s.startswith("INSERT")]
    assert inserts.count("sites") == 2
    assert inserts.count("feeds") == 2
    assert inserts.count("pages") == 6
    assert count(engine, Page) == 6 and count(engine, Site) == 1 and count(engine, Feed) == 1
