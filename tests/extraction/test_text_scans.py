"""The compiled text scans are built, active, and count exactly what their Python twins count."""

from __future__ import annotations

import re
import sys
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction import block_hints
from newscrawl.extraction.block_features import (
    _PUNCTUATION,
    _SENTENCE_END_CHARACTERS,
    _UPPER_SAMPLE,
    _count_characters,
)
from newscrawl.extraction.block_hints import MARKER_WORDS, _marker_flags
from newscrawl.extraction.document import TextPiece, parse_document
from newscrawl.extraction.word_tokens import _count_words, count_words, split_words

# ASCII, Latin with case pairs that lower-casing changes in length (U+0130) or by context
# (final sigma), unspaced scripts (Han, kana, Thai with its marks, Khmer), Hangul, digits in
# other scripts, astral characters (an emoji, a CJK extension B ideograph), whitespace that only
# str.isspace knows, punctuation the features count, and a lone surrogate.
_ALPHABET = (
    "aZ09_ -.,;:!?'\"()"
    "ÉéİıΣσςßẞ\u212a"
    "中文日本語の改正案ー\u3005\u30fb\u0e01\u0e31\u0e4d\u0e5a\u1780\u17d2"
    "한국어\u0663\u00b2\u2167"
    "😀\U00020001"
    "\u00a0\u2003\u3000\u2028\x1c\t\n"
    "、。，；：！？”’」』）"
    "\ud800"
)
_TEXTS = st.lists(st.text(alphabet=_ALPHABET, max_size=80), max_size=12)
_SETTINGS = settings(max_examples=300, deadline=None)
# Every code point three times over: unspaced ones make a pair and a single, others one word
# or none; the Python side counts them with the re module.
_EVERY_CODE_POINT = [
    " ".join(chr(code) * 3 for code in range(start, min(start + 8192, sys.maxunicode + 1)))
    for start in range(0, sys.maxunicode + 1, 8192)
]
# The hint patterns as they were first written, before MARKER_WORDS generated them.
_NEGATIVE_AS_WRITTEN = re.compile(
    r"comment|footer|foot|nav|menu|sidebar|side|share|social|related|promo|advert|\bads?\b|"
    r"banner|breadcrumb|login|subscribe|newsletter|widget|popular|recommend|tags?\b|masthead|"
    r"header|byline|caption|credit|toolbar|cookie|outbrain|taboola|sponsor|more"
)
_POSITIVE_AS_WRITTEN = re.compile(
    r"article|story|content|body|text|post|entry|main|blog|news|paragraph|copy"
)
_MARKER_PARTS = [
    "ad", "ads", "AD", "Ads", "tag", "TAGS", "tagsx", "x", "_", "-", " ", "é", "İ", "\u212a",
    "nav", "News", "newsletter", "1", "ä", "main", "foot", "header", "read", "bad", "post",
]  # fmt: skip


def _python_words(texts: list[str], keywords: set[str]) -> np.ndarray:
    """The Python count of `count_words`."""
    out = np.zeros((2, len(texts)), dtype=np.int64)
    _count_words(texts, keywords, out)
    return out


def _compiled_words(texts: list[str], keywords: set[str]) -> np.ndarray:
    """The compiled count of `count_words`."""
    from newscrawl.extraction._block_rows import count_words as compiled

    out = np.zeros((2, len(texts)), dtype=np.int64)
    compiled(texts, keywords, out)
    return out


def _compiled_characters(texts: list[str]) -> np.ndarray:
    """The compiled count of `_count_characters`."""
    from newscrawl.extraction._block_rows import count_characters as compiled

    out = np.zeros((4, len(texts)), dtype=np.int64)
    compiled(texts, _PUNCTUATION, _SENTENCE_END_CHARACTERS, _UPPER_SAMPLE, out)
    return out


def test_count_words_counts_the_split_words() -> None:
    counts = count_words(["The river, the RIVER!", "", "選挙法の改正案", "İstanbul"], {"river"})
    assert counts.tolist() == [[4, 0, 4, 2], [2, 0, 0, 0]]
    assert split_words("i̇stanbul") == ["i", "stanbul"]


@_SETTINGS
@given(_TEXTS, st.data())
def test_compiled_word_counts_equal_the_python_counts(
    texts: list[str], data: st.DataObject
) -> None:
    tokens = sorted({token for text in texts for token in split_words(text.lower())})
    keywords = set(data.draw(st.lists(st.sampled_from(tokens), max_size=6))) if tokens else set()
    keywords |= set(data.draw(st.lists(st.text(alphabet=_ALPHABET, max_size=4), max_size=3)))
    assert np.array_equal(_compiled_words(texts, keywords), _python_words(texts, keywords))


def test_compiled_word_counts_equal_the_python_counts_for_many_keywords() -> None:
    # Past the keyword filter's capacity every token is looked up.
    texts = [f"word{n} and Word{n + 1}, WORD{n + 2}" for n in range(60)]
    keywords = {f"word{n}" for n in range(0, 60, 2)} | {"and"} | {str(n) for n in range(40)}
    assert np.array_equal(_compiled_words(texts, keywords), _python_words(texts, keywords))


def test_compiled_word_counts_equal_the_python_counts_on_every_code_point() -> None:
    keywords = {"aaa", "中中", "中", "\u0e01\u0e01", "ééé"}
    expected = _python_words(_EVERY_CODE_POINT, keywords)
    assert np.array_equal(_compiled_words(_EVERY_CODE_POINT, keywords), expected)


def test_compiled_word_counts_reject_what_they_cannot_count() -> None:
    from newscrawl.extraction._block_rows import count_words as compiled

    with pytest.raises(ValueError):
        compiled(["a", "b"], set(), np.zeros((2, 1), dtype=np.int64))
    with pytest.raises(TypeError):
        compiled([None], set(), np.zeros((2, 1), dtype=np.int64))


@_SETTINGS
@given(_TEXTS)
def test_compiled_character_counts_equal_the_numpy_counts(texts: list[str]) -> None:
    assert np.array_equal(_compiled_characters(texts), _count_characters(texts))


def test_compiled_character_counts_equal_the_numpy_counts_on_every_code_point() -> None:
    texts = [text[:300] + text[-300:] for text in _EVERY_CODE_POINT]
    texts += [chr(code) for code in range(0x3000, 0x3100)] + list(_SENTENCE_END_CHARACTERS)
    assert np.array_equal(_compiled_characters(texts), _count_characters(texts))


@_SETTINGS
@given(st.lists(st.tuples(st.text(alphabet=_ALPHABET, min_size=1, max_size=30), st.booleans())))
def test_compiled_piece_chars_equal_stripped_lengths(runs: list[tuple[str, bool]]) -> None:
    from newscrawl.extraction._block_rows import piece_chars as compiled

    element = parse_document("<p>x</p>").segments[0].block
    pieces = [TextPiece(text, element, in_link, 0) for text, in_link in runs]
    out = np.full((2, len(pieces)), -1.0)
    compiled(pieces, out)
    expected = [[len(text.strip()) for text, _ in runs]]
    expected.append([len(text.strip()) if in_link else 0 for text, in_link in runs])
    assert np.array_equal(out, np.array(expected, dtype=np.float64).reshape(2, len(pieces)))


def test_marker_words_give_the_patterns_as_written() -> None:
    markers = ["".join(parts) for size in range(4) for parts in product(_MARKER_PARTS, repeat=size)]
    for marker in markers:
        lowered = marker.lower()
        expected = (1 if _NEGATIVE_AS_WRITTEN.search(lowered) else 0) | (
            2 if _POSITIVE_AS_WRITTEN.search(lowered) else 0
        )
        assert _marker_flags(marker) == expected, marker
        assert block_hints.marker_flags(marker) == expected, marker


@_SETTINGS
@given(st.lists(st.sampled_from(_MARKER_PARTS + ["Sidebar", "cookie-bar", "ÄDS"]), max_size=8))
def test_compiled_marker_flags_equal_the_patterns(parts: list[str]) -> None:
    from newscrawl.extraction._block_rows import MarkerHints

    marker = "".join(parts)
    assert MarkerHints(MARKER_WORDS)(marker) == _marker_flags(marker)


def test_marker_hints_refuse_words_they_cannot_match() -> None:
    from newscrawl.extraction._block_rows import MarkerHints

    for words in ([("Nav", 1, False, False)], [("", 1, False, False)], [("é", 1, False, False)]):
        with pytest.raises(ValueError):
            MarkerHints(words)
    with pytest.raises(ValueError):
        MarkerHints([(f"w{n}", 1, False, False) for n in range(65)])


def test_compiled_word_counts_look_up_keywords_of_other_types() -> None:
    class Word(str):
        """A str subclass: equal to the plain token, but not filtered by shape."""

    texts = ["one two three", "Two 2"]
    for keywords in ({Word("two"), "one"}, {2, "three"}, {"", "two"}):
        assert np.array_equal(_compiled_words(texts, keywords), _python_words(texts, keywords))


@_SETTINGS
@given(st.text(alphabet=_ALPHABET, max_size=200))
def test_compiled_lower_words_split_as_the_word_regex(text: str) -> None:
    from newscrawl.extraction._block_rows import lower_words

    assert lower_words(text) == re.findall(r"\w+", text.lower())


@pytest.mark.parametrize("text", _EVERY_CODE_POINT)
def test_compiled_lower_words_read_every_code_point_as_the_word_regex(text: str) -> None:
    from newscrawl.extraction._block_rows import lower_words

    assert lower_words(text) == re.findall(r"\w+", text.lower())
    with pytest.raises(TypeError):
        lower_words(None)  # type: ignore[arg-type]
