"""`newscrawl export`: stored articles as jsonl, csv or markdown, filtered, with a progress bar."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from newscrawl.article_export import ARTICLE_FIELDS
from newscrawl.cli import main
from tests.commands.store_filling import ARTICLES_PER_SITE, SITES, fill_store


def test_jsonl_to_stdout_with_a_progress_bar_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = fill_store(tmp_path / "store.db")
    assert main(["export", "--database-url", url, "--format", "jsonl"]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert len(records) == 2 * ARTICLES_PER_SITE
    assert list(records[0]) == list(ARTICLE_FIELDS)
    assert records[0]["authors"] == ["A. Writer", "B. Editor"]
    assert records[0]["published_at"] == "2026-11-20T12:00:00+00:00"
    assert "100%" in captured.err and "8/8" in captured.err


def test_site_and_since_filters_and_html_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = fill_store(tmp_path / "store.db")
    args = ["export", "--database-url", url, "--quiet", "--site", SITES[1], "--since", "2026-11-19"]
    assert main([*args, "--html"]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert [r["url"] for r in records] == [f"https://{SITES[1]}/world/{i}.html" for i in (0, 1)]
    assert records[0]["html"] == "<p>The first paragraph.</p>"
    assert captured.err == ""


def test_csv_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = fill_store(tmp_path / "store.db")
    output = tmp_path / "articles.csv"
    assert main(["export", "--database-url", url, "--format", "csv", "-o", str(output)]) == 0
    with output.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 2 * ARTICLES_PER_SITE and list(rows[0]) == list(ARTICLE_FIELDS)
    assert rows[0]["authors"] == "A. Writer; B. Editor"
    assert rows[0]["text"].endswith("The first paragraph of story 0.")
    assert f"Exported 8 articles to {output}" in capsys.readouterr().err


def test_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = fill_store(tmp_path / "store.db")
    assert main(["export", "--database-url", url, "--format", "markdown", "--site", SITES[0]]) == 0
    out = capsys.readouterr().out
    sections = out.split("\n---\n\n")
    assert len(sections) == ARTICLES_PER_SITE
    assert sections[0].startswith(f"# {SITES[0]} story 0\n\n- URL: https://{SITES[0]}/world/0.html")
    # The text's leading headline is not repeated under the heading.
    assert sections[0].count(f"{SITES[0]} story 0") == 1


def test_bad_since_and_missing_store_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "--since", "yesterday-ish"])
    assert exit_info.value.code == 2
    assert "'yesterday-ish' is not a date" in capsys.readouterr().err
    missing = tmp_path / "none.db"
    assert main(["export", "--database-url", f"sqlite:///{missing}"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not missing.exists()
