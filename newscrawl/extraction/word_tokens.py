"""Split block text into words, including scripts written without spaces between words."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

import numpy as np

from newscrawl.extraction import compiled_loops

if TYPE_CHECKING:
    from newscrawl.extraction.document import Document

# The compiled scan (see compiled_loops): the counts of `_count_words`, faster.
_rows = compiled_loops.block_rows
_compiled_count_words = None if _rows is None else _rows.count_words
# Whether `count_words` uses the compiled scan rather than `_count_words`.
COMPILED_SCAN: bool = _compiled_count_words is not None

# Scripts that write words without spaces (Han, kana, Thai, Lao, Khmer, Myanmar): `\w+` would
# read a whole sentence as one word. Hangul is spaced and is left to `\w+`.
_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao (their vowel signs are marks, not `\w`: the range keeps them)
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3005\u3006\u3007"  # iteration and closing marks, ideographic zero
    "\u3040-\u30ff"  # hiragana, katakana
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width katakana
    "\U00020000-\U0003134f"  # CJK extensions B to G
)
# A word in such a script averages about two characters, so a run counts as its character pairs;
# everything else is a `\w+` run, exactly as before.
_WORD = re.compile(rf"[{_UNSPACED}]{{1,2}}|[^\W{_UNSPACED}]+")
_PLAIN_WORD = re.compile(r"\w+")
_HAS_UNSPACED = re.compile(rf"[{_UNSPACED}]")


def split_words(text: str) -> list[str]:
    """The words of a text: `\\w+` runs, with unspaced scripts cut into character pairs."""
    if text.isascii():
        # Most blocks: the plain pattern is faster and gives the same words.
        return _PLAIN_WORD.findall(text)
    return _WORD.findall(text)


def count_text_words(text: str) -> int:
    """The word count of an article's text: whitespace-separated words, runs of unspaced
    scripts counted as `split_words` cuts them (so a Japanese article is not a dozen words)."""
    words = text.split()
    if text.isascii():
        return len(words)
    return sum(
        len(_WORD.findall(word)) or 1 if _HAS_UNSPACED.search(word) else 1 for word in words
    )


def count_words(texts: list[str], keywords: Collection[str]) -> np.ndarray:
    """Rows per text: its lower-cased words (`split_words`) and how many of them are keywords."""
    counts = np.empty((2, len(texts)), dtype=np.int64)
    if _compiled_count_words is not None:
        _compiled_count_words(texts, keywords, counts)
    else:
        _count_words(texts, keywords, counts)
    return counts


def count_segment_words(document: Document, keywords: Collection[str]) -> np.ndarray:
    """`count_words` of every block's text, counted once per page and keyword set.

    Title relevance and the block features both count the blocks' words against the title's
    keywords; the second asks the first's (read-only) result.
    """
    key = frozenset(keywords)
    counts = document.word_counts.get(key)
    if counts is None:
        counts = count_words([segment.text for segment in document.segments], key)
        counts.flags.writeable = False
        document.word_counts[key] = counts
    return counts


def _count_words(texts: list[str], keywords: Collection[str], out: np.ndarray) -> None:
    """`count_words` in Python: the reference for the compiled twin in `_text_scan.pxi`."""
    is_keyword = keywords.__contains__
    for column, text in enumerate(texts):
        tokens = split_words(text.lower())
        out[0, column] = len(tokens)
        out[1, column] = sum(map(is_keyword, tokens))
