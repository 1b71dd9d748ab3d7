import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from newscrawl.evaluation.metadata_eval import author_f1, normalise_text, score_dates


def test_author_f1_compares_normalised_name_sets() -> None:
    assert author_f1(["anna  BERG", "Tom Ray"], ["Anna Berg", "Tom Ray"]) == 1.0
    assert author_f1(["Anna Berg", "View author archive"], ["Anna Berg"]) == 2 / 3
    assert author_f1([], []) == 1.0
    assert author_f1(["Anna Berg"], []) == 0.0


def test_title_match_collapses_whitespace_and_case() -> None:
    assert normalise_text(" Brexit:\n the  DEAL ") == normalise_text("brexit: the deal")


def test_dates_are_compared_in_the_gold_offset() -> None:
    berlin = timezone(timedelta(hours=2))
    gold = "2024-04-28T00:30:00+02:00"
    assert score_dates(datetime(2024, 4, 27, 22, 30, tzinfo=UTC), gold) == (True, True)
    assert score_dates(datetime(2024, 4, 28, 0, 31, tzinfo=berlin), gold) == (True, False)
    assert score_dates(datetime(2024, 4, 27, 0, 30), gold) == (False, False)
    assert score_dates(None, gold) == (False, False)
    assert score_dates(None, None) == (None, None)


def test_evaluate_metadata_command_scores_a_small_dataset(tmp_path: Path) -> None:
    (tmp_path / "html").mkdir()
    page = (
        '<html lang="de"><head><title>Der Titel | Zeitung</title>'
        '<meta property="article:published_time" content="2024-04-28T10:15:00+02:00"></head>'
        '<body><article><h1>Der Titel</h1><p class="byline">Von Anna Berg und Tom Ray</p>'
        + "<p>Die Geschichte wird hier mit vielen Worten erzählt, und sie ist lang.</p>" * 10
        + "</article></body></html>"
    )
    (tmp_path / "html" / "p1.html").write_text(page, encoding="utf-8")
    entry = {"id": "p1", "gold_title": "Der Titel", "gold_authors": ["Anna Berg", "Tom Ray"],
             "gold_published": "2024-04-28T10:15:00+02:00", "gold_published_has_time": True,
             "language": "de", "lang_group": "german"}
    (tmp_path / "index.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    out = tmp_path / "scores.json"
    done = subprocess.run(
        [sys.executable, "-m", "newscrawl", "evaluate", str(tmp_path), "--metadata",
         "--peers", "trafilatura", "--json", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    scores = json.loads(out.read_text())
    assert scores["newscrawl"]["author_f1"] == 1.0
    assert scores["newscrawl"]["date_minute"] == 1.0
    assert scores["newscrawl"]["language"] == 1.0
    assert scores["newscrawl"]["junk_pages"] == 0
    assert "trafilatura" in scores and "german" in done.stdout


def test_evaluate_metadata_rejects_a_dataset_without_gold_metadata(tmp_path: Path) -> None:
    (tmp_path / "index.jsonl").write_text('{"id": "p1"}\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "newscrawl", "evaluate", str(tmp_path), "--metadata",
         "--peers", "trafilatura"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2
    assert "no page carries gold metadata" in done.stderr
