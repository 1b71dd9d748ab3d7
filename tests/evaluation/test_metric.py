"""The bag-of-words metric, checked against hand-computed values."""

from __future__ import annotations

import pytest

from newscrawl.evaluation.metric import Score, average_scores, score_bag_of_words, tokenize


def test_tokenize_lowercases_and_counts_word_runs() -> None:
    assert tokenize("The cat, the CAT's hat_1 -- 42!") == {
        "the": 2, "cat": 2, "s": 1, "hat_1": 1, "42": 1,
    }
    assert tokenize("Ünïcode café") == {"ünïcode": 1, "café": 1}


def test_score_counts_token_frequencies() -> None:
    # extracted: a a b c (4 tokens); gold: a b b d d (5 tokens)
    # overlap = min(2,1) for a + min(1,2) for b = 2 -> P = 2/4, R = 2/5
    score = score_bag_of_words("a a b c", "a b b d d")
    assert score.precision == pytest.approx(0.5)
    assert score.recall == pytest.approx(0.4)
    assert score.f1 == pytest.approx(2 * 0.5 * 0.4 / 0.9)


def test_perfect_and_empty_extractions() -> None:
    assert score_bag_of_words("Hello, world", "hello world") == Score(1.0, 1.0, 1.0)
    assert score_bag_of_words("", "hello world") == Score(0.0, 0.0, 0.0)
    assert score_bag_of_words("nothing shared", "hello world") == Score(0.0, 0.0, 0.0)


def test_average_is_macro_over_pages_including_f1() -> None:
    first = score_bag_of_words("a b", "a b")  # 1, 1, 1
    second = score_bag_of_words("a a a b", "b")  # P 1/4, R 1, F1 0.4
    average = average_scores([first, second])
    assert average.pages == 2
    assert average.precision == pytest.approx((1 + 0.25) / 2)
    assert average.recall == pytest.approx(1.0)
    # The mean of page F1s (0.7), not the F1 of the mean P and R (0.769...).
    assert average.f1 == pytest.approx(0.7)


def test_averages_of_averages_weigh_by_pages() -> None:
    group = average_scores([Score(1.0, 1.0, 1.0), Score(0.0, 0.0, 0.0)])
    combined = average_scores([group, Score(1.0, 1.0, 1.0)])
    assert combined.pages == 3
    assert combined.f1 == pytest.approx(2 / 3)
    assert average_scores([]) == Score(0.0, 0.0, 0.0, pages=0)


def test_score_to_dict() -> None:
    assert Score(0.5, 0.25, 1 / 3, pages=4).to_dict() == {
        "precision": 0.5, "recall": 0.25, "f1": 0.333333, "pages": 4,
    }
