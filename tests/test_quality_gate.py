"""Quality gate: extraction F1 on the shared dev datasets must not fall below the recorded floors.

The datasets live beside the repository (`../shared/datasets`) and are never copied into it;
without them the gate skips. Floors are in `tests/quality_floors.json`; after a deliberate
change, re-measure and rewrite them (each 0.01 below the new figure) with:

    .venv/bin/python -m tests.test_quality_gate --update-floors
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pytest

from newscrawl.evaluation.dataset import read_dataset
from newscrawl.evaluation.runner import EvaluationResult, EvaluationRunner

REPO_ROOT = Path(__file__).resolve().parents[1]
DATASETS = REPO_ROOT / ".." / "shared" / "datasets"
FLOORS_FILE = Path(__file__).with_name("quality_floors.json")
# Bootstrap intervals on these pages are about +-0.01: a smaller drop is noise.
MARGIN = 0.01


def read_floors() -> dict[str, Any]:
    """The recorded floors, keyed by mode."""
    runs: dict[str, Any] = json.loads(FLOORS_FILE.read_text(encoding="utf-8"))["runs"]
    return runs


def measure(mode: str, names: list[str]) -> EvaluationResult:
    """Run the default configuration on the named datasets: no peers, no ablation (fast)."""
    folders = [DATASETS / name for name in names]
    missing = [str(folder) for folder in folders if not (folder / "index.jsonl").is_file()]
    if missing:
        pytest.skip(f"dev datasets not present: {', '.join(missing)}")
    return EvaluationRunner(mode=mode, progress=False).run([read_dataset(f) for f in folders])


@pytest.mark.parametrize("mode", sorted(read_floors()))
def test_f1_stays_above_the_floors(mode: str) -> None:
    floors = read_floors()[mode]
    result = measure(mode, list(floors["datasets_f1"]))
    measured = {name: score.f1 for name, score in result.by_dataset().items()}
    overall = result.overall().f1
    report = f"{mode}: overall F1 {overall:.4f}, " + ", ".join(
        f"{name} {f1:.4f}" for name, f1 in measured.items()
    )
    failures = [
        f"{name} F1 {measured[name]:.4f} < floor {floor}"
        for name, floor in floors["datasets_f1"].items()
        if measured[name] < floor
    ]
    if overall < floors["overall_f1"]:
        failures.append(f"overall F1 {overall:.4f} < floor {floors['overall_f1']}")
    assert not failures, f"{report}; " + "; ".join(failures)
    assert result.errors() == 0, f"{result.errors()} pages raised during extraction"


def _floor(value: float) -> float:
    return math.floor((value - MARGIN) * 1000) / 1000


def update_floors() -> None:
    """Measure every run and write floors MARGIN below the figures into the floors file."""
    document = json.loads(FLOORS_FILE.read_text(encoding="utf-8"))
    for mode, floors in document["runs"].items():
        result = measure(mode, list(floors["datasets_f1"]))
        floors["overall_f1"] = _floor(result.overall().f1)
        floors["measured_f1"] = round(result.overall().f1, 4)
        for name, score in result.by_dataset().items():
            floors["datasets_f1"][name] = _floor(score.f1)
        print(f"{mode}: overall F1 {result.overall().f1:.4f} -> floor {floors['overall_f1']}")
    FLOORS_FILE.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Re-measure the quality gate's F1 floors.")
    parser.add_argument("--update-floors", action="store_true", required=True)
    parser.parse_args()
    update_floors()
