"""Type stub for the compiled block loops (_block_rows.pyx and its .pxi parts)."""

from collections.abc import Collection, Iterable

import numpy as np

from newscrawl.extraction.document import Document, Segment, TextPiece

# _text_scan.pxi

def count_words(texts: list[str], keywords: Collection[str], out: np.ndarray) -> None:
    """`word_tokens._count_words`: into `out`, words of each lower-cased text and keyword hits."""

def is_clean_utf8(data: bytes, start: int = 0) -> bool:
    """`decoding.is_clean_utf8`, checked without making the text."""

def lower_words(text: str) -> list[str]:
    """`language._lower_words`: `re.findall(r"\\w+", text.lower())`, the runs found in C."""

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

# _feature_rows.pxi

def worded_nodes(segments: list[Segment], words: np.ndarray) -> list[int]:
    """Walk index (`Segment.node`) of each segment that has a word, in order."""

def fill_feature_rows(
    document: Document,
    has_template: bool,
    static_threshold: float,
    piece_values: np.ndarray,
    word_counts: np.ndarray,
    character_counts: np.ndarray,
    flags: list[int],
    hint_bits: tuple[int, ...],
    group_of: dict[str, int],
    no_group: int,
    column: dict[str, int],
    out: np.ndarray,
) -> None:
    """Write `FEATURE_NAMES`' row of every segment into `out` (zeros, one row per segment)."""

# _block_trees.pxi

def leaf_sums(
    rows: np.ndarray,
    root_features: np.ndarray,
    root_thresholds: np.ndarray,
    root_children: np.ndarray,
    features: np.ndarray,
    thresholds: np.ndarray,
    children: np.ndarray,
    values: np.ndarray,
    depth: int,
) -> np.ndarray:
    """Per row, the sum over trees of the leaf it reaches (see `block_scorer._Layout`)."""
