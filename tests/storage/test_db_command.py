from __future__ import annotations

import pytest

from newscrawl.cli import main
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import read_current_revision, read_head_revision


def test_db_upgrade_then_current(database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "current", "--database-url", database_url]) == 0
    assert "revision none" in capsys.readouterr().out
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    assert "up to date" in capsys.readouterr().out
    engine = create_database_engine(database_url)
    try:
        assert read_current_revision(engine) == read_head_revision()
    finally:
        engine.dispose()


def test_db_reads_the_url_from_the_environment(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NEWSCRAWL_DATABASE_URL", database_url)
    assert main(["db", "upgrade"]) == 0
    assert "up to date" in capsys.readouterr().out
