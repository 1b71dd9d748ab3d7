"""Articles: one row per article (storage/article_identity.py); a re-crawl updates it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Table, bindparam, func, select, text, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from newscrawl.extraction.word_tokens import count_text_words
from newscrawl.storage.article_identity import (
    StoredIdentity,
    choose_canonical,
    load_identities,
    prefetch_identities,
    remember_identity,
    resolve_identity,
)
from newscrawl.storage.batched_write import BatchedWrite
from newscrawl.storage.deferred_writes import deferred_writes
from newscrawl.storage.models import Article
from newscrawl.storage.page_repository import upsert_page
from newscrawl.storage.records import ArticleRecord, PageRecord
from newscrawl.storage.retry import is_transient_error
from newscrawl.storage.text_normaliser import normalise_text
from newscrawl.storage.upsert import prepare_upsert

ARTICLE_UPSERT = prepare_upsert(
    Article.__table__,  # type: ignore[arg-type]
    conflict_columns=["url"],
)
# One article alone: its id in the same round trip.
ARTICLE_UPSERT_RETURNING = prepare_upsert(
    Article.__table__,  # type: ignore[arg-type]
    conflict_columns=["url"],
    returning=["id", "url"],
)
ARTICLES: Table = Article.__table__  # type: ignore[assignment]
ARTICLE_IDS = select(ARTICLES.c.id, ARTICLES.c.url).where(
    ARTICLES.c.url.in_(bindparam("urls", expanding=True))
)


def quote_fts5_words(query: str) -> str:
    """Plain words as an FTS5 query requiring each: every word a quoted string ("" escapes a
    quote), which FTS5 tokenises like the indexed text instead of reading it as syntax."""
    return " ".join('"' + word.replace('"', '""') + '"' for word in query.split())


def compute_content_hash(text_content: str) -> str:
    """SHA-256 of the whitespace-normalised text, to spot the same story under two URLs."""
    return hashlib.sha256(" ".join(text_content.split()).encode("utf-8")).hexdigest()


def write_article(
    session: Session,
    article: ArticleRecord,
    *,
    page_id: int | None,
    page: PageRecord | None,
    content_hash: str | None = None,
) -> int:
    """Upsert an article and mark its page extracted, in the caller's transaction.

    A page that never went through the buffer (`page_id` None) is stored first, from `page`.
    `content_hash` is the text's compute_content_hash, when the caller has it already.
    """
    return ArticleWrite(article, page_id, page, content_hash=content_hash)(session)


@dataclass
class ArticleWrite(BatchedWrite[int]):
    """write_article for the BatchWriter: a batch of them is stored together (see
    store_articles), then each write closes its page and returns its article's id."""

    article: ArticleRecord
    page_id: int | None
    page: PageRecord | None = None
    content_hash: str | None = None
    word_count: int | None = None
    # Set by store_articles: the row's id.
    article_id: int | None = None

    @classmethod
    def prepare_batch(cls, session: Session, writes: Sequence[ArticleWrite]) -> None:
        store_articles(session, writes)

    def stored_result(self) -> int | None:
        return self.article_id

    def finish(self, session: Session, result: int) -> int:
        if self.page_id is not None:
            # Closed at the commit with the batch's other pages, one executemany for them all.
            deferred_writes(session).closed_pages[self.page_id] = datetime.now(UTC)
        return result


def store_articles(session: Session, writes: Sequence[ArticleWrite]) -> None:
    """Upsert the articles of `writes`, in order, and set each write's `article_id`.

    One query reads the stored identities of them all; new articles are inserted together,
    one executemany, except that an article whose URL or text is also that of a new
    article before it waits for that one to be written, so that each is resolved against what
    one-by-one writes would have stored before it. A page not yet stored is stored first.
    """
    values_of: list[dict[str, Any]] = []
    lookups: list[tuple[tuple[str, str], str]] = []
    for write in writes:
        article = write.article
        write.article_id = None
        if write.content_hash is None:
            # In the writer's thread, not on the reactor's.
            write.content_hash = compute_content_hash(article.text)
        if write.word_count is None:
            write.word_count = count_text_words(article.text)
        # Shallow: asdict() deep-copies every list and string list of the record, per article.
        values = {column.name: getattr(article, column.name) for column in fields(article)}
        values["feed"] = article.feed
        values["content_hash"] = write.content_hash
        values["word_count"] = write.word_count
        values_of.append(values)
        preferred = choose_canonical(article.url, article.canonical_url)
        lookups.append(((article.url, preferred), write.content_hash))
    prefetch_identities(session, lookups)
    transaction = session.get_transaction()
    for write in writes:
        write.stored_in = transaction
    pending = PendingArticles()
    for write, values, ((url, preferred), content_hash) in zip(
        writes, values_of, lookups, strict=True
    ):
        page_id = write.page_id
        if page_id is None and write.page is not None:
            page_id = upsert_page(session, write.page, status="extracted")
        values["page_id"] = page_id
        keys = {normalise_text(url), normalise_text(preferred)}
        if pending.concerns(keys, content_hash):
            pending.insert(session)
        identity = resolve_identity(
            url, write.article.canonical_url, content_hash,
            load_identities(session, list({url, preferred}), content_hash),
        )
        values["url"] = identity.url
        values["duplicate_of"] = identity.duplicate_of
        if identity.row_id is None:
            pending.add(write, values)
            continue
        # Rows are written in the batch's order: the new ones before this one go first.
        pending.insert(session)
        session.connection().execute(
            update(Article).where(Article.id == identity.row_id).values(**values)
        )
        write.article_id = identity.row_id
        remember_identity(
            session,
            StoredIdentity(identity.row_id, identity.url, content_hash, identity.duplicate_of),
        )
    pending.insert(session)


def upsert_articles(session: Session, rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Upsert article rows (URLs distinct); the id of each by its stored URL.

    Several rows go in one executemany, which psycopg sends in one pipeline of a statement it
    parsed once (a multi-row INSERT ... RETURNING is too long for its cache: it parsed each
    one anew), and their ids are read in one query.
    """
    if len(rows) == 1:
        result = ARTICLE_UPSERT_RETURNING.execute_returning(session, rows)
        return {url: int(article_id) for article_id, url in result}
    ARTICLE_UPSERT.execute_many(session, rows)
    urls = [values["url"] for values in rows]
    found = session.connection().execute(ARTICLE_IDS, {"urls": urls})
    return {url: int(article_id) for article_id, url in found}


@dataclass
class PendingArticles:
    """New articles of a batch not inserted yet: one executemany for them all."""

    writes: list[tuple[ArticleWrite, dict[str, Any]]] = field(default_factory=list)
    # The stored forms of their URLs, and their texts' hashes.
    urls: set[str] = field(default_factory=set)
    content_hashes: set[str] = field(default_factory=set)

    def concerns(self, urls: set[str], content_hash: str) -> bool:
        """Whether a lookup of `urls` or `content_hash` would find one of these rows."""
        return content_hash in self.content_hashes or not self.urls.isdisjoint(urls)

    def add(self, write: ArticleWrite, values: dict[str, Any]) -> None:
        self.writes.append((write, values))
        self.urls.add(normalise_text(values["url"]))
        self.content_hashes.add(values["content_hash"])

    def insert(self, session: Session) -> None:
        """Upsert the pending rows (upsert_articles)."""
        if not self.writes:
            return
        ids = upsert_articles(session, [values for _, values in self.writes])
        for write, values in self.writes:
            url = normalise_text(values["url"])
            write.article_id = int(ids[url])
            remember_identity(
                session,
                StoredIdentity(
                    write.article_id, url, values["content_hash"], values["duplicate_of"]
                ),
            )
        self.writes.clear()
        self.urls.clear()
        self.content_hashes.clear()


class ArticleRepository:
    """Stores extracted articles and closes their pages."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def save_article(
        self, article: ArticleRecord, *, page_id: int | None, page: PageRecord | None = None
    ) -> int:
        """Upsert an article and mark its page extracted, in one transaction."""
        with Session(self.engine) as session, session.begin():
            return write_article(session, article, page_id=page_id, page=page)

    def count_articles(self) -> int:
        """How many articles are stored."""
        with Session(self.engine) as session:
            return int(session.scalar(select(func.count(Article.id))) or 0)

    def search_articles(self, query: str, *, limit: int = 20, raw: bool = False) -> list[str]:
        """URLs of the articles whose title or text match `query`, best first.

        By default `query` is plain words, every one required (`e-mail`, `c++`, `1.5`,
        `NEAR(` or a lone `"` are words, not syntax): quoted for FTS5 on SQLite, read by
        `websearch_to_tsquery` on PostgreSQL; no query raises. `raw=True` passes the
        backend's own syntax through (an FTS5 MATCH expression, or `to_tsquery` on
        PostgreSQL), and a query that syntax rejects raises ValueError.
        PostgreSQL indexes the first 100,000 characters of an article's text.
        """
        query = normalise_text(query)
        with Session(self.engine) as session:
            dialect = session.get_bind().dialect.name
            if dialect == "postgresql":
                parser = "to_tsquery" if raw else "websearch_to_tsquery"
                statement = text(
                    f"SELECT url FROM articles, {parser}('simple', :q) AS query"
                    " WHERE search_vector @@ query"
                    " ORDER BY ts_rank(search_vector, query) DESC, id LIMIT :limit"
                )
            else:
                if not raw:
                    query = quote_fts5_words(query)
                if not query:
                    return []
                statement = text(
                    "SELECT a.url FROM articles_fts JOIN articles AS a ON a.id = articles_fts.rowid"
                    " WHERE articles_fts MATCH :q ORDER BY articles_fts.rank, a.id LIMIT :limit"
                )
            try:
                return list(session.scalars(statement, {"q": query, "limit": limit}))
            except DBAPIError as error:
                if not raw or is_transient_error(error):
                    raise
                message = f"invalid {dialect} search query {query!r}: {error.orig}"
                raise ValueError(message) from None

    def load_articles(self, urls: Sequence[str]) -> list[Article]:
        """Articles by URL (detached ORM rows), for reports and tests."""
        with Session(self.engine, expire_on_commit=False) as session:
            rows = session.scalars(select(Article).where(Article.url.in_(list(urls))))
            articles = list(rows)
            session.expunge_all()
            return articles
