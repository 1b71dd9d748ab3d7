"""Which scored blocks are kept: the threshold, and the best guess when none reaches it."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction.builder import pick_likely_blocks


def test_blocks_at_the_threshold_are_kept_and_no_others() -> None:
    probabilities = np.array([0.9, 0.6, 0.45, 0.0])
    assert pick_likely_blocks(probabilities, 0.5, 0.7).tolist() == [True, True, False, False]


def test_a_page_with_no_likely_block_keeps_its_likeliest_ones() -> None:
    # A short post: the paragraph scores 0.3, the headline 0.25, the sidebar less.
    probabilities = np.array([0.0, 0.25, 0.3, 0.1, 0.05])
    assert pick_likely_blocks(probabilities, 0.5, 0.7).tolist() == [
        False, True, True, False, False,
    ]  # fmt: skip


def test_the_best_guess_can_be_switched_off() -> None:
    probabilities = np.array([0.25, 0.3])
    assert not pick_likely_blocks(probabilities, 0.5, 0.0).any()


def test_a_page_without_scored_blocks_keeps_nothing() -> None:
    assert not pick_likely_blocks(np.zeros(3), 0.5, 0.7).any()
    assert not pick_likely_blocks(np.zeros(0), 0.5, 0.7).any()
