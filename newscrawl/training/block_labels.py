"""Label each block as article text or not by its token overlap with the gold text."""

from __future__ import annotations

import re
from collections import Counter

from newscrawl.extraction.document import Document

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased `\\w+` tokens, as the benchmark metric counts them."""
    return _WORD.findall(text.lower())


def label_blocks(document: Document, gold: str, min_overlap: float = 0.7) -> list[int]:
    """1 for blocks whose words are (nearly) all in the gold text, else 0."""
    gold_tokens = tokenize(gold)
    gold_counts = Counter(gold_tokens)
    gold_joined = " " + " ".join(gold_tokens) + " "
    labels = []
    for segment in document.segments:
        tokens = tokenize(segment.text)
        if not tokens:
            labels.append(0)
            continue
        if " " + " ".join(tokens) + " " in gold_joined:
            labels.append(1)
            continue
        overlap = sum((Counter(tokens) & gold_counts).values()) / len(tokens)
        labels.append(int(len(tokens) >= 8 and overlap >= min_overlap))
    return labels
