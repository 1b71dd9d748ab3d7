"""bench.extract_speed on a generated dataset: every contender, stage and ratio is reported."""

from __future__ import annotations

import json
from pathlib import Path

from bench.extract_speed import LXML, NEIGHBOURS, SINGLE, WALK, main, parse_and_walk
from tests.evaluation.generated_dataset import write_dataset


def test_report_has_floors_modes_stages_and_ratios(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path)
    report = tmp_path / "speed.json"
    arguments = ["--peers", "", "--stages", "--repeat", "2", "--json", str(report)]
    assert main([str(dataset), *arguments]) == 0
    summary = json.loads(report.read_text())
    for name in (LXML, WALK, SINGLE, NEIGHBOURS):
        assert summary["times"][name]["count"] == 6
        assert summary["times"][name]["median"] > 0
    assert summary["ratios"][f"{SINGLE} / {LXML}"]["pages"] == 6
    assert summary["ratios"][f"{WALK} / {LXML}"]["ratio"] > 0
    # Neighbour mode runs the static stage; single mode has no template to run it with.
    assert "static noise" in summary["stages"][NEIGHBOURS]
    assert "static noise" not in summary["stages"][SINGLE]
    assert summary["stages"][SINGLE]["build article"]["count"] == 6
    assert summary["learning"]["template learning (neighbours of a page)"]["count"] == 6


def test_the_walk_floor_reads_every_text_and_tail() -> None:
    html = "<html><body><p>ab<b>cd</b>ef</p><!--gh--></body></html>"
    assert parse_and_walk(html) == len("abcdefgh")
