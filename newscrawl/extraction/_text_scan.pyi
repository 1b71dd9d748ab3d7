"""Type stub for the compiled per-block text scans (_text_scan.pyx)."""

from collections.abc import Collection, Iterable

import numpy as np

from newscrawl.extraction.document import TextPiece

def count_words(texts: list[str], keywords: Collection[str], out: np.ndarray) -> None:
    """`word_tokens._count_words`: into `out`, words of each lower-cased text and keyword hits."""

def count_characters(
    texts: list[str], punctuation: str, sentence_ends: str, head: int, out: np.ndarray
) -> None:
    """`block_features._count_characters`: sentence end, punctuation, head capitals, head size."""

def piece_chars(pieces: list[TextPiece], out: np.ndarray) -> None:
    """`block_features._piece_chars`: into `out`, stripped lengths of the pieces, and in links."""

def int_rows(rows: list[list[int]], out: np.ndarray) -> None:
    """`block_features._int_rows`: each list of ints into the start of its row of `out`."""

class MarkerHints:
    """`block_hints._marker_flags` compiled: flags of the words a class or id value contains."""

    def __init__(self, marker_words: Iterable[tuple[str, int, bool, bool]]) -> None:
        """A matcher of `block_hints.MARKER_WORDS`."""

    def __call__(self, marker: str) -> int:
        """The OR of the flags of the marker words in the lower-cased marker."""
