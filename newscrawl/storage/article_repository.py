"""Articles: upserted by URL, so a re-crawl updates the row instead of adding one."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from newscrawl.extraction.word_tokens import count_text_words
from newscrawl.storage.models import Article
from newscrawl.storage.page_repository import PAGES, upsert_page
from newscrawl.storage.records import ArticleRecord, PageRecord
from newscrawl.storage.upsert import prepare_upsert

ARTICLE_UPSERT = prepare_upsert(
    Article.__table__,  # type: ignore[arg-type]
    conflict_columns=["url"],
    returning=["id"],
)
# Built once: building an UPDATE per article cost SQLAlchemy more than running it.
CLOSE_PAGE = (
    update(PAGES)
    .where(PAGES.c.id == bindparam("page_id"))
    .values(status="extracted", error=None, updated_at=bindparam("now"))
)


def compute_content_hash(text_content: str) -> str:
    """SHA-256 of the whitespace-normalised text, to spot the same story under two URLs."""
    return hashlib.sha256(" ".join(text_content.split()).encode("utf-8")).hexdigest()


def write_article(
    session: Session, article: ArticleRecord, *, page_id: int | None, page: PageRecord | None
) -> int:
    """Upsert an article and mark its page extracted, in the caller's transaction.

    A page that never went through the buffer (`page_id` None) is stored first, from `page`.
    """
    # Shallow: asdict() deep-copies every list and string list of the record, per article.
    values: dict[str, Any] = {field.name: getattr(article, field.name) for field in fields(article)}
    values["feed"] = article.feed
    values["content_hash"] = compute_content_hash(article.text)
    values["word_count"] = count_text_words(article.text)
    close_page = page_id is not None
    if page_id is None and page is not None:
        page_id = upsert_page(session, page, status="extracted")
    values["page_id"] = page_id
    article_id = ARTICLE_UPSERT.execute(session, values).scalar_one()
    if close_page:
        # Core on the session's connection: nothing is loaded, no ORM objects to keep in step.
        session.connection().execute(CLOSE_PAGE, {"page_id": page_id, "now": datetime.now(UTC)})
    return int(article_id)


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

    def search_articles(self, query: str, *, limit: int = 20) -> list[str]:
        """URLs of the articles whose title or text match a full-text query, best first."""
        with Session(self.engine) as session:
            if session.get_bind().dialect.name == "postgresql":
                statement = text(
                    "SELECT url FROM articles, websearch_to_tsquery('simple', :q) AS query"
                    " WHERE search_vector @@ query"
                    " ORDER BY ts_rank(search_vector, query) DESC, id LIMIT :limit"
                )
            else:
                statement = text(
                    "SELECT a.url FROM articles_fts JOIN articles AS a ON a.id = articles_fts.rowid"
                    " WHERE articles_fts MATCH :q ORDER BY articles_fts.rank, a.id LIMIT :limit"
                )
            return list(session.scalars(statement, {"q": query, "limit": limit}))

    def load_articles(self, urls: Sequence[str]) -> list[Article]:
        """Articles by URL (detached ORM rows), for reports and tests."""
        with Session(self.engine, expire_on_commit=False) as session:
            rows = session.scalars(select(Article).where(Article.url.in_(list(urls))))
            articles = list(rows)
            session.expunge_all()
            return articles
