"""Articles: one row per article (storage/article_identity.py); a re-crawl updates it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, func, select, text, update
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
    returning=["id"],
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
    # Shallow: asdict() deep-copies every list and string list of the record, per article.
    values: dict[str, Any] = {field.name: getattr(article, field.name) for field in fields(article)}
    values["feed"] = article.feed
    values["content_hash"] = content_hash or compute_content_hash(article.text)
    values["word_count"] = count_text_words(article.text)
    page_to_close = page_id
    if page_id is None and page is not None:
        page_id = upsert_page(session, page, status="extracted")
    values["page_id"] = page_id
    preferred = choose_canonical(article.url, article.canonical_url)
    identity = resolve_identity(
        article.url, article.canonical_url, values["content_hash"],
        load_identities(session, list({article.url, preferred}), values["content_hash"]),
    )
    values["url"] = identity.url
    values["duplicate_of"] = identity.duplicate_of
    if identity.row_id is None:
        article_id = ARTICLE_UPSERT.execute(session, values).scalar_one()
    else:
        article_id = identity.row_id
        session.connection().execute(
            update(Article).where(Article.id == article_id).values(**values)
        )
    # What a later article of the batch would have read back had it asked the database.
    written = StoredIdentity(
        int(article_id), identity.url, values["content_hash"], identity.duplicate_of
    )
    remember_identity(session, written)
    if page_to_close is not None:
        # Closed at the commit with the batch's other pages, one executemany for them all.
        deferred_writes(session).closed_pages[page_to_close] = datetime.now(UTC)
    return int(article_id)


@dataclass
class ArticleWrite:
    """write_article for the BatchWriter: a batch of them reads its stored identities at once."""

    article: ArticleRecord
    page_id: int | None
    page: PageRecord | None = None
    content_hash: str | None = None

    def __call__(self, session: Session) -> int:
        return write_article(
            session,
            self.article,
            page_id=self.page_id,
            page=self.page,
            content_hash=self.content_hash,
        )

    @staticmethod
    def prepare_batch(session: Session, writes: Sequence[ArticleWrite]) -> None:
        """One query for the stored identities of every article of the batch, not one each."""
        lookups = []
        for write in writes:
            article = write.article
            if write.content_hash is None:
                # In the writer's thread, not on the reactor's.
                write.content_hash = compute_content_hash(article.text)
            preferred = choose_canonical(article.url, article.canonical_url)
            lookups.append(((article.url, preferred), write.content_hash))
        prefetch_identities(session, lookups)


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
