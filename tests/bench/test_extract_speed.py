"""bench.extract_speed on a generated dataset: every contender, stage and ratio is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import extract_speed
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


def test_timer_settles_the_allocator_around_each_call_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(extract_speed, "settle_allocator", lambda: calls.append("settle"))
    settled = extract_speed.Timer(settle=True)
    settled(lambda: calls.append("call"))
    assert calls == ["settle", "call", "settle"]
    calls.clear()
    assert settled.keeping(lambda: calls.append("kept") or 7)[1] == 7
    assert calls == ["settle", "kept", "settle"]
    calls.clear()
    bare = extract_speed.Timer(settle=False)
    bare(lambda: calls.append("call"))
    assert bare.keeping(lambda: 3)[1] == 3
    assert calls == ["call"]


def test_no_settle_times_calls_bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dataset = write_dataset(tmp_path)
    calls: list[str] = []
    monkeypatch.setattr(extract_speed, "settle_allocator", lambda: calls.append("settle"))
    assert main([str(dataset), "--peers", "", "--repeat", "1", "--no-settle"]) == 0
    assert calls == []
    assert main([str(dataset), "--peers", "", "--repeat", "1"]) == 0
    assert calls
