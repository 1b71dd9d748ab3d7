"""Class/id and tag hints of an element, which its descendants inherit as bit flags."""

from __future__ import annotations

import re

# Matched against lower-cased markers: re.IGNORECASE makes these alternations 3x slower.
_NEGATIVE_HINT = re.compile(
    r"comment|footer|foot|nav|menu|sidebar|side|share|social|related|promo|advert|\bads?\b|"
    r"banner|breadcrumb|login|subscribe|newsletter|widget|popular|recommend|tags?\b|masthead|"
    r"header|byline|caption|credit|toolbar|cookie|outbrain|taboola|sponsor|more"
)
_POSITIVE_HINT = re.compile(
    r"article|story|content|body|text|post|entry|main|blog|news|paragraph|copy"
)
NEGATIVE_HINT = 1
POSITIVE_HINT = 2
BOILERPLATE_TAG = 4
IN_LIST = 8
IN_TABLE = 16
HINT_BITS = (NEGATIVE_HINT, POSITIVE_HINT, BOILERPLATE_TAG, IN_LIST, IN_TABLE)
BOILERPLATE_TAGS = frozenset({"nav", "footer", "header", "aside", "form", "menu", "select"})
TAG_FLAGS: dict[object, int] = {
    **dict.fromkeys(BOILERPLATE_TAGS, BOILERPLATE_TAG),
    "ul": IN_LIST,
    "ol": IN_LIST,
    "dl": IN_LIST,
    "table": IN_TABLE,
}


def marker_flags(marker: str) -> int:
    """Negative and positive content hints of a "class id" string; markers repeat a lot."""
    marker = marker.lower()
    return (NEGATIVE_HINT if _NEGATIVE_HINT.search(marker) else 0) | (
        POSITIVE_HINT if _POSITIVE_HINT.search(marker) else 0
    )
