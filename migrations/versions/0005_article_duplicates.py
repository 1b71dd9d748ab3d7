"""Article duplicates: `duplicate_of` links a syndicated copy (same text, another URL) to the
article first stored with that text.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain column, no foreign key: SQLite would rebuild the table for one, and the
    # rebuild would drop the full-text search triggers of `articles`.
    op.add_column("articles", sa.Column("duplicate_of", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_articles_duplicate_of"), "articles", ["duplicate_of"])


def downgrade() -> None:
    op.drop_index(op.f("ix_articles_duplicate_of"), table_name="articles")
    with op.batch_alter_table("articles", recreate="never") as batch:
        batch.drop_column("duplicate_of")
