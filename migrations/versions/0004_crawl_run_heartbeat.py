"""crawl_runs.heartbeat_at: when a running crawl last said it is alive.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26

A killed crawl never writes its finish, so its row said "running" forever. A run whose
heartbeat is stale (or whose process is gone, on the same host) is shown as interrupted by
`newscrawl status` and marked so by the next crawl.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("crawl_runs") as batch:
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("crawl_runs") as batch:
        batch.drop_column("heartbeat_at")
