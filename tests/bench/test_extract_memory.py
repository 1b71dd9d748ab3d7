"""bench.extract_memory at small scale: each page measured in a fresh process, with the baseline."""

from __future__ import annotations

import json
from pathlib import Path

from bench.extract_memory import SIZES, build_page, main
from newscrawl.extraction.document import MAX_ELEMENTS


def test_pages_have_the_asked_size_and_shape() -> None:
    for shape in ("elements", "markup", "prose"):
        page = build_page(shape, SIZES["100KB"])
        assert SIZES["100KB"] <= len(page) < SIZES["100KB"] * 1.05
        assert b"Harbour plan approved" in page
    # The element-heavy shape is the one that reaches the cap at 5 MB.
    assert build_page("elements", SIZES["1MB"]).count(b"<") > MAX_ELEMENTS / 4


def test_report_measures_every_mode_of_every_page(tmp_path: Path) -> None:
    report = tmp_path / "memory.json"
    assert main(["--shapes", "elements,prose", "--sizes", "100KB", "--json", str(report)]) == 0
    measurements = json.loads(report.read_text())
    assert {(m["shape"], m["mode"]) for m in measurements} == {
        (shape, mode)
        for shape in ("elements", "prose")
        for mode in ("lxml", "untrimmed", "extract")
    }
    for measurement in measurements:
        assert measurement["peak_mb"] >= measurement["start_mb"] > 0
        if measurement["mode"] != "lxml":
            # The article at the top of the page was found, and a small page is never cut.
            assert measurement["article_chars"] > 200
            assert measurement["truncated"] is False
