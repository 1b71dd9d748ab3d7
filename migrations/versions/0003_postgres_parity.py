"""PostgreSQL parity: text instead of VARCHAR(n), and a tsvector of a bounded prefix.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26

PostgreSQL refused what SQLite (which ignores lengths) kept: categories over 255
characters, og:image or canonical URLs over 2,048, ETags over 512. Every string column
becomes `text`, as the models say. The search vector of an article with ~170,000 distinct
words exceeded PostgreSQL's 1 MB tsvector limit and failed the write; it is now built from
the first SEARCH_TITLE_CHARS of the title and SEARCH_TEXT_CHARS of the text. At most 4 bytes
a character, that is under 0.5 MB of lexemes whatever the words. SQLite needs no change.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SEARCH_TITLE_CHARS = 10_000
SEARCH_TEXT_CHARS = 100_000

# Each table's VARCHAR columns and the length 0001 gave them (the downgrade truncates to it).
VARCHAR_COLUMNS = {
    "sites": {"name": 255},
    "feeds": {"url": 2048, "site": 255, "category": 255, "etag": 512, "last_modified": 128},
    "pages": {
        "url": 2048, "site": 255, "category": 255, "group_key": 511,
        "body_compression": 16, "encoding": 64, "feed_url": 2048, "status": 16,
    },
    "templates": {"group_key": 511, "site": 255, "category": 255, "config_version": 64},
    "articles": {
        "url": 2048, "canonical_url": 2048, "language": 16, "image_url": 2048, "site": 255,
        "category": 255, "feed": 2048, "content_hash": 64, "extraction_method": 32,
        "config_version": 64,
    },
    "crawl_runs": {"spider": 128, "worker": 255, "finish_reason": 128},
}

BOUNDED_SEARCH_VECTOR = f"""
    ALTER TABLE articles ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', left(coalesce(title, ''), {SEARCH_TITLE_CHARS})), 'A')
        || setweight(to_tsvector('simple', left(coalesce(text, ''), {SEARCH_TEXT_CHARS})), 'B')
    ) STORED
"""
UNBOUNDED_SEARCH_VECTOR = """
    ALTER TABLE articles ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce(title, '')), 'A')
        || setweight(to_tsvector('simple', coalesce(text, '')), 'B')
    ) STORED
"""
SEARCH_INDEX = "CREATE INDEX ix_articles_search_vector ON articles USING gin (search_vector)"


def _replace_search_vector(definition: str) -> None:
    # A generated column's expression cannot be altered before PostgreSQL 17: drop and add
    # (dropping the column drops its index).
    op.execute("ALTER TABLE articles DROP COLUMN search_vector")
    op.execute(definition)
    op.execute(SEARCH_INDEX)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, columns in VARCHAR_COLUMNS.items():
        for column, length in columns.items():
            op.alter_column(
                table, column, type_=sa.Text(), existing_type=sa.String(length=length)
            )
    _replace_search_vector(BOUNDED_SEARCH_VECTOR)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _replace_search_vector(UNBOUNDED_SEARCH_VECTOR)
    for table, columns in VARCHAR_COLUMNS.items():
        for column, length in columns.items():
            op.alter_column(
                table,
                column,
                type_=sa.String(length=length),
                existing_type=sa.Text(),
                postgresql_using=f"left({column}, {length})",
            )
