"""Type stub for the compiled title-relevance block loops (_relevance.pyx)."""

from collections.abc import Callable
from collections.abc import Set as AbstractSet

import numpy as np

from newscrawl.extraction.document import Document

BUILT_FOR_LXML: str

def relevant_blocks(
    document: Document,
    counts: np.ndarray,
    keywords: AbstractSet[str],
    cap_key_number: bool,
    title_similarity: float,
    paragraph_possibility: float,
    paragraph_tags: frozenset[str],
    count_words: Callable[[list[str], AbstractSet[str]], np.ndarray],
) -> tuple[list[int], list[int]]:
    """`relevance._relevant_blocks`: (headline blocks, best paragraph group)."""
