"""The engines' own connection handling, against the real PostgreSQL."""

from __future__ import annotations

from sqlalchemy import text

from newscrawl.storage.engine import create_database_engine
from tests.database_support import POSTGRES_URL


def test_a_pooled_connection_left_mid_command_is_replaced_at_checkout() -> None:
    # What a backend killed mid-statement leaves: psycopg's connection with a command in flight
    # (transaction status ACTIVE), which SQLAlchemy's pre-ping cannot switch to autocommit.
    engine = create_database_engine(POSTGRES_URL, pool_size=1, pool_reset_on_return=None)
    try:
        with engine.connect() as connection:
            left = connection.connection.dbapi_connection
            assert left is not None
            left.pgconn.send_query(b"SELECT 1")
        with engine.connect() as connection:
            assert connection.execute(text("SELECT 2")).scalar() == 2
            assert connection.connection.dbapi_connection is not left
    finally:
        engine.dispose()
