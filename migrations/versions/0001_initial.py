"""Initial schema: sites, feeds, pages, templates, articles with full-text search, crawl_runs.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)

SQLITE_FTS = (
    """
    CREATE VIRTUAL TABLE articles_fts USING fts5(
        title, text, content='articles', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2'
    )
    """,
    """
    CREATE TRIGGER articles_fts_after_insert AFTER INSERT ON articles BEGIN
        INSERT INTO articles_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
    END
    """,
    """
    CREATE TRIGGER articles_fts_after_delete AFTER DELETE ON articles BEGIN
        INSERT INTO articles_fts(articles_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
    END
    """,
    """
    CREATE TRIGGER articles_fts_after_update AFTER UPDATE OF title, text ON articles BEGIN
        INSERT INTO articles_fts(articles_fts, rowid, title, text)
        VALUES ('delete', old.id, old.title, old.text);
        INSERT INTO articles_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
    END
    """,
)

# 'simple' (no stemming) because the corpus mixes languages; titles rank above body text.
POSTGRESQL_FTS = (
    """
    ALTER TABLE articles ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce(title, '')), 'A')
        || setweight(to_tsvector('simple', coalesce(text, '')), 'B')
    ) STORED
    """,
    "CREATE INDEX ix_articles_search_vector ON articles USING gin (search_vector)",
)


def upgrade() -> None:
    op.create_table(
        "sites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("first_seen_at", TIMESTAMP, nullable=False),
        sa.Column("last_seen_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sites")),
        sa.UniqueConstraint("name", name=op.f("uq_sites_name")),
    )
    op.create_table(
        "feeds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("site", sa.String(length=255), nullable=False),
        sa.Column("category", sa.String(length=255), nullable=True),
        sa.Column("etag", sa.String(length=512), nullable=True),
        sa.Column("last_modified", sa.String(length=128), nullable=True),
        sa.Column("last_polled_at", TIMESTAMP, nullable=True),
        sa.Column("next_poll_at", TIMESTAMP, nullable=True),
        sa.Column("failure_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("is_dead", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("first_seen_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_feeds")),
        sa.UniqueConstraint("url", name=op.f("uq_feeds_url")),
    )
    op.create_index(op.f("ix_feeds_site"), "feeds", ["site"])
    op.create_table(
        "pages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("site", sa.String(length=255), nullable=False),
        sa.Column("category", sa.String(length=255), nullable=False),
        sa.Column("group_key", sa.String(length=511), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("body_compression", sa.String(length=16), nullable=False),
        sa.Column("encoding", sa.String(length=64), nullable=True),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("feed_url", sa.String(length=2048), nullable=True),
        sa.Column("published_at", TIMESTAMP, nullable=True),
        sa.Column("authors", sa.JSON(), nullable=False),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=False),
        sa.Column("fetched_at", TIMESTAMP, nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'extracted', 'failed')",
            name=op.f("ck_pages_status_allowed"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pages")),
        sa.UniqueConstraint("url", name=op.f("uq_pages_url")),
    )
    op.create_index("ix_pages_group_key_status", "pages", ["group_key", "status"])
    op.create_index("ix_pages_group_key_id", "pages", ["group_key", "id"])
    op.create_index("ix_pages_status_id", "pages", ["status", "id"])
    op.create_table(
        "templates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("group_key", sa.String(length=511), nullable=False),
        sa.Column("site", sa.String(length=255), nullable=False),
        sa.Column("category", sa.String(length=255), nullable=False),
        sa.Column("template", sa.LargeBinary(), nullable=False),
        sa.Column("format_version", sa.Integer(), nullable=False),
        sa.Column("page_count", sa.Integer(), nullable=False),
        sa.Column("last_page_id", sa.Integer(), nullable=False),
        sa.Column("config_version", sa.String(length=64), nullable=False),
        sa.Column("learned_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_templates")),
        sa.UniqueConstraint("group_key", name=op.f("uq_templates_group_key")),
    )
    op.create_table(
        "articles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("page_id", sa.Integer(), nullable=True),
        sa.Column("canonical_url", sa.String(length=2048), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("html", sa.Text(), nullable=False),
        sa.Column("published_at", TIMESTAMP, nullable=True),
        sa.Column("authors", sa.JSON(), nullable=False),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=True),
        sa.Column("image_url", sa.String(length=2048), nullable=True),
        sa.Column("image_caption", sa.Text(), nullable=True),
        sa.Column("site", sa.String(length=255), nullable=False),
        sa.Column("category", sa.String(length=255), nullable=False),
        sa.Column("feed", sa.String(length=2048), nullable=True),
        sa.Column("fetched_at", TIMESTAMP, nullable=False),
        sa.Column("extracted_at", TIMESTAMP, nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("extraction_method", sa.String(length=32), nullable=False),
        sa.Column("config_version", sa.String(length=64), nullable=False),
        sa.Column("word_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"], ["pages.id"],
            name=op.f("fk_articles_page_id_pages"), ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_articles")),
        sa.UniqueConstraint("url", name=op.f("uq_articles_url")),
    )
    op.create_index(op.f("ix_articles_page_id"), "articles", ["page_id"])
    op.create_index(op.f("ix_articles_content_hash"), "articles", ["content_hash"])
    op.create_index("ix_articles_site_published_at", "articles", ["site", "published_at"])
    op.create_index(
        "ix_articles_category_published_at", "articles", ["category", "published_at"]
    )
    op.create_table(
        "crawl_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("spider", sa.String(length=128), nullable=False),
        sa.Column("worker", sa.String(length=255), nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("finished_at", TIMESTAMP, nullable=True),
        sa.Column("finish_reason", sa.String(length=128), nullable=True),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_crawl_runs")),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for statement in SQLITE_FTS:
            op.execute(statement)
    elif dialect == "postgresql":
        for statement in POSTGRESQL_FTS:
            op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for trigger in ("after_insert", "after_delete", "after_update"):
            op.execute(f"DROP TRIGGER IF EXISTS articles_fts_{trigger}")
        op.execute("DROP TABLE IF EXISTS articles_fts")
    op.drop_table("crawl_runs")
    op.drop_table("articles")
    op.drop_table("templates")
    op.drop_table("pages")
    op.drop_table("feeds")
    op.drop_table("sites")
