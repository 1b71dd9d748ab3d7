"""Feed polling state: interval, last status and error, entry counts, poll counters.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNTERS = ("entries_seen", "entries_new", "polls", "not_modified")


def upgrade() -> None:
    with op.batch_alter_table("feeds") as batch:
        batch.add_column(sa.Column("interval_seconds", sa.Float(), nullable=True))
        batch.add_column(sa.Column("last_status", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("last_error", sa.Text(), nullable=True))
        for name in COUNTERS:
            batch.add_column(sa.Column(name, sa.Integer(), server_default="0", nullable=False))
    # The poll loop asks for due feeds every second or so.
    op.create_index(op.f("ix_feeds_next_poll_at"), "feeds", ["next_poll_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_feeds_next_poll_at"), table_name="feeds")
    with op.batch_alter_table("feeds") as batch:
        for name in (*reversed(COUNTERS), "last_error", "last_status", "interval_seconds"):
            batch.drop_column(name)
