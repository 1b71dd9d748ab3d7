"""Metadata gate: title, date, author and language scores on fundus-dev must hold their floors.

The dataset lives beside the repository (`../shared/datasets`) and is never copied into it;
without it the gate skips. Floors are in `tests/metadata_floors.json`, each a little below the
figure measured with `newscrawl evaluate ../shared/datasets/fundus-dev --metadata`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from newscrawl.evaluation.metadata_eval import (
    ExtractorSummary,
    evaluate_metadata,
    newscrawl_extractor,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DATASET = REPO_ROOT / ".." / "shared" / "datasets" / "fundus-dev"
FLOORS = json.loads(Path(__file__).with_name("metadata_floors.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def summary() -> ExtractorSummary:
    if not (DATASET / "index.jsonl").is_file():
        pytest.skip(f"{DATASET} is absent: the metadata gate needs the shared dev set")
    return evaluate_metadata([DATASET], {"newscrawl": newscrawl_extractor})[0]


@pytest.mark.parametrize("field", ["title", "date_day", "date_minute", "language"])
def test_rates_hold_their_floors(summary: ExtractorSummary, field: str) -> None:
    rate = summary.rate(field)
    assert rate is not None and rate >= FLOORS[field], f"{field}: {rate} < {FLOORS[field]}"


def test_author_f1_holds_its_floor(summary: ExtractorSummary) -> None:
    assert summary.mean_author_f1() >= FLOORS["author_f1"]


def test_junk_author_pages_stay_under_the_ceiling(summary: ExtractorSummary) -> None:
    assert summary.junk_pages() / len(summary.scores) <= FLOORS["junk_page_share_max"]
