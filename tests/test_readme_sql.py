"""Every SQL example in README.md runs as written on SQLite and on PostgreSQL.

A ```sql block must run on both; ```sql sqlite and ```sql postgresql blocks on that one only.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.models import Article, Page
from tests.database_support import DIALECTS, MigratedDatabases

README = Path(__file__).resolve().parents[1] / "README.md"
SQL_BLOCK = re.compile(r"^```sql(?:[ \t]+(\w+))?[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def read_sql_blocks() -> list[tuple[str | None, str]]:
    """(dialect or None for both, code) of every sql block in the README."""
    return [(m.group(1), m.group(2)) for m in SQL_BLOCK.finditer(README.read_text("utf-8"))]


def split_statements(block: str) -> list[str]:
    """The block's statements, comments dropped (the examples hold no ';' in strings)."""
    code = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("--"))
    return [statement.strip() for statement in code.split(";") if statement.strip()]


def fill_store(engine: Engine) -> None:
    """Fill a migrated store with articles on two sites and a pending and a failed page."""
    now = datetime(2026, 11, 20, 12, 0)
    with Session(engine) as session:
        for index in range(5):
            site = "harbour.example" if index % 2 else "valley.example"
            session.add(Article(
                url=f"https://{site}/news/{index}.html", title=f"Harbour strike day {index}",
                text="Dock workers began a harbour strike on Monday.", html="<p>x</p>",
                published_at=now - timedelta(days=index), authors=["A. Writer"], keywords=[],
                site=site, category="news", fetched_at=now, extracted_at=now,
                content_hash=f"{index:064d}", extraction_method="single", config_version="t",
                word_count=8,
            ))
        for status, error in (("pending", None), ("failed", "no article text found")):
            session.add(Page(
                url=f"https://valley.example/news/{status}.html", site="valley.example",
                category="news", group_key="valley.example|news", body=b"", encoding=None,
                authors=[], keywords=[], http_status=200, fetched_at=now, status=status,
                error=error, updated_at=now,
            ))
        session.commit()


def test_the_readme_has_sql_for_both_stores_and_for_each() -> None:
    dialects = [dialect for dialect, _ in read_sql_blocks()]
    assert None in dialects and "sqlite" in dialects and "postgresql" in dialects
    assert set(dialects) <= {None, *DIALECTS}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_readme_sql_example_runs(
    dialect: str, tmp_path: Path, migrated_databases: MigratedDatabases
) -> None:
    engine = create_database_engine(migrated_databases.empty_url(dialect, tmp_path))
    try:
        fill_store(engine)
        ran = 0
        with engine.connect() as connection:
            for block_dialect, block in read_sql_blocks():
                if block_dialect not in (None, dialect):
                    continue
                for statement in split_statements(block):
                    rows = connection.exec_driver_sql(statement).fetchall()
                    # Each example selects from the rows above: none may come back empty.
                    assert rows, statement
                    ran += 1
    finally:
        engine.dispose()
    assert ran >= 5
