"""Bag-of-words precision, recall and F1, as the datasets README and the StaDyNoT paper define.

Tokens are lower-cased `\\w+` runs counted with their frequencies (no stop-word removal);
scores are computed per page and averaged over pages (macro), F1 included.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Score:
    """Precision, recall and F1 of one page, or their macro average over `pages` pages."""

    precision: float
    recall: float
    f1: float
    pages: int = 1

    def to_dict(self) -> dict[str, float | int]:
        """Return the JSON form used by `newscrawl evaluate --json`."""
        return {
            "precision": round(self.precision, 6),
            "recall": round(self.recall, 6),
            "f1": round(self.f1, 6),
            "pages": self.pages,
        }


def tokenize(text: str) -> Counter[str]:
    """Count the lower-cased `\\w+` tokens of a text."""
    return Counter(_TOKEN.findall(text.lower()))


def score_bag_of_words(extracted: str, gold: str) -> Score:
    """Score one page: overlap is the sum over tokens of min(extracted count, gold count).

    An empty extraction scores precision 0 (it found nothing), and F1 is 0 when P + R is 0.
    """
    found = tokenize(extracted)
    expected = tokenize(gold)
    overlap = sum((found & expected).values())
    precision = overlap / sum(found.values()) if found else 0.0
    recall = overlap / sum(expected.values()) if expected else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Score(precision, recall, f1)


def average_scores(scores: Iterable[Score]) -> Score:
    """Macro-average page scores: each page counts once, whatever its length."""
    items = list(scores)
    if not items:
        return Score(0.0, 0.0, 0.0, pages=0)
    pages = sum(score.pages for score in items)
    return Score(
        precision=sum(s.precision * s.pages for s in items) / pages,
        recall=sum(s.recall * s.pages for s in items) / pages,
        f1=sum(s.f1 * s.pages for s in items) / pages,
        pages=pages,
    )
