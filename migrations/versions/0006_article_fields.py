"""Article fields: description, site name, the page's tags, its modified date and its own headline.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)
_COLUMNS = ("description", "site_name", "tags", "modified_at", "page_headline")


def upgrade() -> None:
    # Plain add_column: SQLite would rebuild the table in a batch, and the rebuild would drop
    # the full-text search triggers of `articles`. Rows stored before have no tags: "[]".
    op.add_column("articles", sa.Column("description", sa.Text(), nullable=True))
    op.add_column("articles", sa.Column("site_name", sa.Text(), nullable=True))
    op.add_column(
        "articles", sa.Column("tags", sa.JSON(), server_default="[]", nullable=False)
    )
    op.add_column("articles", sa.Column("modified_at", TIMESTAMP, nullable=True))
    op.add_column("articles", sa.Column("page_headline", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("articles", recreate="never") as batch:
        for name in reversed(_COLUMNS):
            batch.drop_column(name)
