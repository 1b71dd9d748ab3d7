"""`newscrawl status`: read-only, one-line errors, filters, JSON, and a reader that goes away."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from newscrawl.cli import main
from tests.commands.store_filling import SITES, fill_store
from tests.e2e.crawl_support import REPO_ROOT


def test_an_empty_directory_gets_an_error_and_no_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NEWSCRAWL_DATABASE_URL", raising=False)
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no database at" in err and "newscrawl.db" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("not a url", 2, "bad database URL 'not a url'"),
        ("nosuchdb://x/y", 2, "bad database URL 'nosuchdb://x/y'"),
        ("postgresql://postgres@127.0.0.1:9/test", 1, "cannot read postgresql+psycopg://"),
    ],
)
def test_bad_urls_and_unreachable_servers_are_one_line(
    url: str, status: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--database-url", url]) == status
    err = capsys.readouterr().err
    assert err.startswith(f"newscrawl status: {message}") and err.count("\n") == 1


def test_reading_leaves_the_file_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "store.db"
    url = fill_store(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    assert main(["status", "--database-url", url]) == 0
    assert "Articles (8)" in capsys.readouterr().out
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_site_and_feed_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = fill_store(tmp_path / "store.db")
    assert main(["status", "--database-url", url, "--site", SITES[0]]) == 0
    out = capsys.readouterr().out
    assert "Feeds (2," in out and "Articles (4)" in out and SITES[1] not in out
    assert main(["status", "--database-url", url, "--feed", "sport"]) == 0
    out = capsys.readouterr().out
    assert "Feeds (2," in out and "/world/rss.xml" not in out


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = fill_store(tmp_path / "store.db")
    assert main(["status", "--database-url", url, "--json", "--site", SITES[1]]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"feeds", "pending_groups", "sites", "runs"}
    assert {feed["site"] for feed in report["feeds"]} == {SITES[1]}
    assert report["sites"] == [
        {"site": SITES[1], "articles": 4, "last_extracted_at": "2026-11-20T12:00:00+00:00"}
    ]


def test_a_closed_pipe_is_no_error(tmp_path: Path) -> None:
    url = fill_store(tmp_path / "store.db")
    with subprocess.Popen(
        [sys.executable, "-m", "newscrawl", "status", "--database-url", url, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    ) as status:
        assert status.stdout is not None and status.stderr is not None
        status.stdout.close()  # as `| head` does once it has its lines
        err = status.stderr.read().decode()
        assert status.wait(timeout=60) == 0, err
    assert err == ""
