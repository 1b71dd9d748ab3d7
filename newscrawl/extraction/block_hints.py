"""Class/id and tag hints of an element, which its descendants inherit as bit flags."""

from __future__ import annotations

import re
from collections.abc import Callable

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.tag_sets import BOILERPLATE_TAGS

NEGATIVE_HINT = 1
POSITIVE_HINT = 2
BOILERPLATE_TAG = 4
IN_LIST = 8
IN_TABLE = 16
HINT_BITS = (NEGATIVE_HINT, POSITIVE_HINT, BOILERPLATE_TAG, IN_LIST, IN_TABLE)
TAG_FLAGS: dict[object, int] = {
    **dict.fromkeys(BOILERPLATE_TAGS, BOILERPLATE_TAG),
    "ul": IN_LIST,
    "ol": IN_LIST,
    "dl": IN_LIST,
    "table": IN_TABLE,
}


# Class and id words that hint at boilerplate ("footer" and "sidebar" also contain "foot" and
# "side"), and words that hint at content.
_NEGATIVE_WORDS = (
    "comment", "footer", "foot", "nav", "menu", "sidebar", "side", "share", "social", "related",
    "promo", "advert", "banner", "breadcrumb", "login", "subscribe", "newsletter", "widget",
    "popular", "recommend", "masthead", "header", "byline", "caption", "credit", "toolbar",
    "cookie", "outbrain", "taboola", "sponsor", "more",
)  # fmt: skip
_POSITIVE_WORDS = (
    "article", "story", "content", "body", "text", "post", "entry", "main", "blog", "news",
    "paragraph", "copy",
)  # fmt: skip
# The marker words as (word, flag, must start a word, must end a word). A marker has a word's
# flag when its lower-cased form contains the word.
MARKER_WORDS: tuple[tuple[str, int, bool, bool], ...] = (
    *((word, NEGATIVE_HINT, False, False) for word in _NEGATIVE_WORDS),
    # "ad" and "ads" only as whole words (not "header", "reads"); "tag", "tags" ending one.
    ("ad", NEGATIVE_HINT, True, True),
    ("ads", NEGATIVE_HINT, True, True),
    ("tag", NEGATIVE_HINT, False, True),
    ("tags", NEGATIVE_HINT, False, True),
    *((word, POSITIVE_HINT, False, False) for word in _POSITIVE_WORDS),
)


def _words_pattern(flag: int) -> re.Pattern[str]:
    """One alternation of the marker words with this flag."""
    return re.compile(
        "|".join(
            (r"\b" if starts else "") + re.escape(word) + (r"\b" if ends else "")
            for word, word_flag, starts, ends in MARKER_WORDS
            if word_flag == flag
        )
    )


# Matched against lower-cased markers: re.IGNORECASE makes these alternations 3x slower.
_NEGATIVE_HINT = _words_pattern(NEGATIVE_HINT)
_POSITIVE_HINT = _words_pattern(POSITIVE_HINT)


def _marker_flags(marker: str) -> int:
    """`marker_flags` in Python: the reference for `_block_rows.MarkerHints`."""
    marker = marker.lower()
    return (NEGATIVE_HINT if _NEGATIVE_HINT.search(marker) else 0) | (
        POSITIVE_HINT if _POSITIVE_HINT.search(marker) else 0
    )


# Negative and positive content hints of a "class id" string (markers repeat a lot: callers
# memoise per page); the compiled matcher (see compiled_loops) gives `_marker_flags`' flags.
marker_flags: Callable[[str], int] = (
    _marker_flags
    if compiled_loops.block_rows is None
    else compiled_loops.block_rows.MarkerHints(MARKER_WORDS)
)
