"""Reading the dataset layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from newscrawl.evaluation.dataset import read_dataset
from newscrawl.evaluation.errors import DatasetError
from tests.evaluation.generated_dataset import write_dataset


def test_read_dataset_groups_pages_by_cluster(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path))
    assert dataset.name == "tiny"
    assert len(dataset.pages) == 6
    clusters = dataset.clusters()
    assert sorted(clusters) == ["river-post", "valley-times"]
    assert [p.id for p in clusters["river-post"]] == [
        "river-post-harbour", "river-post-library", "river-post-market",
    ]
    page = dataset.pages[0]
    assert page.read_html().startswith(b"<html>")
    assert page.read_gold().startswith("Harbour reopens")
    assert page.title_hint == "Harbour reopens after storm"


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="index.jsonl"):
        read_dataset(tmp_path)


def test_bad_index_line_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "index.jsonl").write_text('{"id": "a"}\n{not json\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"index.jsonl:2"):
        read_dataset(tmp_path)
