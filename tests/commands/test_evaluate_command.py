"""`newscrawl evaluate` through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from newscrawl.cli import main
from tests.evaluation.generated_dataset import write_dataset


def test_evaluate_prints_tables_and_writes_json_and_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write_dataset(tmp_path / "data", "first")
    second = write_dataset(tmp_path / "data", "second")
    report = tmp_path / "report" / "scores.json"
    outputs = tmp_path / "outputs"
    status = main(
        ["evaluate", str(first), str(second), "--mode", "neighbours", "--json", str(report),
         "--outputs", str(outputs), "--no-ablation"]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "valley-times" in printed and "overall" in printed and "median ms/page" in printed
    assert "ablation" not in printed
    document = json.loads(report.read_text())
    assert document["overall"]["pages"] == 12
    assert set(document["datasets"]) == {"first", "second"}
    assert document["datasets"]["first"]["pages"] == 6
    assert 0.0 <= document["overall"]["f1"] <= 1.0
    assert document["mode"] == "neighbours"
    assert len(document["page_scores"]) == 12
    assert {"dataset", "id", "f1"} <= set(document["page_scores"][0])
    assert document["ablation"] == {} and document["peers"] == {}
    assert len(list((outputs / "second").glob("*.txt"))) == 6


def test_evaluate_single_mode_with_ablation_and_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_dataset(tmp_path)
    report = tmp_path / "scores.json"
    assert main(["evaluate", str(folder), "--mode", "single", "--limit", "1",
                 "--json", str(report)]) == 0
    assert "no_title_relevance" in capsys.readouterr().out
    document = json.loads(report.read_text())
    assert document["overall"]["pages"] == 1
    assert document["ablation"]["paper"]["overall"]["pages"] == 1
    assert document["template_learning_ms"]["count"] == 0


def test_evaluate_grouped_only_leaves_out_pages_without_neighbours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_dataset(tmp_path)
    index = folder / "index.jsonl"
    lines = index.read_text(encoding="utf-8").splitlines()
    alone = json.loads(lines[0]) | {"cluster": "alone"}
    index.write_text("\n".join([json.dumps(alone), *lines[1:]]) + "\n", encoding="utf-8")
    report = tmp_path / "scores.json"
    assert main(["evaluate", str(folder), "--mode", "single", "--grouped-only", "--no-ablation",
                 "--json", str(report)]) == 0
    capsys.readouterr()
    document = json.loads(report.read_text())
    assert document["overall"]["pages"] == 5
    assert alone["id"] not in {page["id"] for page in document["page_scores"]}


def test_evaluate_with_peers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("trafilatura")
    folder = write_dataset(tmp_path)
    assert main(["evaluate", str(folder), "--peers", "trafilatura", "--no-ablation"]) == 0
    assert "F1 trafilatura" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra", [["--peers", "nosuchpeer"], ["--limit", "0"]],
)
def test_evaluate_refuses_bad_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    folder = write_dataset(tmp_path)
    assert main(["evaluate", str(folder), *extra]) == 2
    assert "newscrawl evaluate:" in capsys.readouterr().err


def test_evaluate_reports_a_missing_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", str(tmp_path / "nope")]) == 2
    assert "index.jsonl" in capsys.readouterr().err


def test_evaluate_names_a_missing_gold_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_dataset(tmp_path)
    (folder / "gold" / "river-post-library.txt").unlink()
    assert main(["evaluate", str(folder), "--no-ablation"]) == 2
    assert "river-post-library" in capsys.readouterr().err
