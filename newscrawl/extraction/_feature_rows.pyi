"""Type stub for the compiled block feature table (_feature_rows.pyx)."""

import numpy as np

from newscrawl.extraction.document import Document, Segment

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
