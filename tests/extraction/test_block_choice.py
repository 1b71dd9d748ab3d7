"""Which scored blocks are kept: the threshold, and the best guess when none reaches it."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction import extract
from newscrawl.extraction.builder import pick_likely_blocks

ALL_PROSE = np.ones(5, dtype=bool)


def test_blocks_at_the_threshold_are_kept_and_no_others() -> None:
    probabilities = np.array([0.9, 0.6, 0.45, 0.0, 0.3])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, ALL_PROSE)
    assert kept.tolist() == [True, True, False, False, False]


def test_a_page_with_no_likely_block_keeps_its_likeliest_ones() -> None:
    # A short post: the paragraph scores 0.3, a second one 0.25, the sidebar less.
    probabilities = np.array([0.0, 0.25, 0.3, 0.1, 0.05])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, ALL_PROSE)
    assert kept.tolist() == [False, True, True, False, False]


def test_a_kept_headline_alone_does_not_count_as_the_article() -> None:
    # Only the headline (block 0) passes: the body's likeliest blocks join it.
    probabilities = np.array([0.95, 0.4, 0.35, 0.1, 0.0])
    prose = np.array([False, True, True, True, True])
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose)
    assert kept.tolist() == [True, True, True, False, False]
    # A paragraph at the threshold is an article: nothing is added then.
    probabilities[1] = 0.6
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose)
    assert kept.tolist() == [True, True, False, False, False]


def test_only_prose_is_a_best_guess() -> None:
    probabilities = np.array([0.0, 0.25, 0.3, 0.1, 0.05])
    prose = np.array([True, True, False, True, True])  # block 2: a link list or a heading
    kept = pick_likely_blocks(probabilities, 0.5, 0.7, prose)
    assert kept.tolist() == [False, True, False, False, False]


def test_the_best_guess_can_be_switched_off() -> None:
    probabilities = np.array([0.25, 0.3])
    assert not pick_likely_blocks(probabilities, 0.5, 0.0, np.ones(2, dtype=bool)).any()


def test_a_page_without_scored_blocks_keeps_nothing() -> None:
    assert not pick_likely_blocks(np.zeros(3), 0.5, 0.7, np.ones(3, dtype=bool)).any()
    assert not pick_likely_blocks(np.zeros(0), 0.5, 0.7, np.ones(0, dtype=bool)).any()


def test_extract_on_a_page_of_links_gives_no_text_from_the_fallback() -> None:
    # Every block is a link: none is prose, so the best guess adds nothing.
    links = "".join(f"<li><a href='/p{k}'>Story number {k}</a></li>" for k in range(20))
    assert "Story number" not in extract(f"<html><body><ul>{links}</ul></body></html>").text


def test_extract_on_a_body_of_symbols_gives_no_text_from_the_fallback() -> None:
    # A binary body served as HTML: no block scores, and symbols are no best guess.
    noise = "".join(chr(c) for c in range(33, 127) if not chr(c).isalpha() and c not in (38, 60))
    page = f"<html><body><p>{noise * 3}</p><p>{noise[::-1] * 2} ab</p></body></html>"
    assert extract(page).text == ""
    words = "<p>Ferry timetable changes tonight for the harbour line riders</p>"
    assert "Ferry timetable" in extract(page.replace("</body>", words + "</body>")).text
