"""A title given by the caller (a feed, a news sitemap) as plain text."""

from __future__ import annotations

import html
import re

from w3lib.html import remove_tags

from newscrawl.extraction.page_tree import compose_text


def plain_title(title: str) -> str:
    """Unescape the title's entities once, strip its markup and collapse its whitespace.

    Feeds carry titles as HTML (`Q&amp;A`, `It&#8217;s`, `&lt;i&gt;Italic&lt;/i&gt;`), and
    a title must be what a reader sees. Markup is stripped before and after unescaping, so
    escaped tags go as well.
    """
    text = remove_tags(html.unescape(remove_tags(title))) if "<" in title or "&" in title else title
    # Composed as the page text is (`page_tree.compose_text`), so that its words match.
    return " ".join(compose_text(text).split())


# A trailing " | Site", " – DW – 13.06.2023", "：中日新聞Web" or a leading "Kicker | ".
_TRAILING_SEGMENT = re.compile(r"\s*(?:\s[|\u2013\u2014-]\s|[｜：])\s*([^|\u2013\u2014｜：]+?)\s*$")
_LEADING_SEGMENT = re.compile(r"^([^|]+?)\s+\|\s+")
_DATE_SEGMENT = re.compile(r"^[\d./\s-]+$")
_MAX_FURNITURE_WORDS = 4
_MIN_HEADLINE_WORDS = 3


def _is_furniture(segment: str) -> bool:
    """A site name, section or date: a few capitalised words, or digits and dots."""
    if _DATE_SEGMENT.match(segment):
        return True
    words = segment.split()
    return len(words) <= _MAX_FURNITURE_WORDS and all(not w[0].islower() for w in words)


def strip_title_furniture(title: str) -> str:
    """Drop site names, sections and dates around a headline ("Headline | Site – 13.06.2023").

    A segment goes only when it is short and what stays is still a headline of a few words
    (or, in scripts written without spaces, a dozen characters).
    """
    text = title.strip()
    while (match := _TRAILING_SEGMENT.search(text)) and _is_furniture(match.group(1)):
        rest = text[: match.start()].rstrip()
        if not is_long_enough(rest):
            break
        text = rest
    match = _LEADING_SEGMENT.match(text)
    if match and len(match.group(1).split()) <= 2 and is_long_enough(text[match.end():]):
        text = text[match.end():]
    return text


def is_long_enough(text: str) -> bool:
    """Whether the text is long enough for a headline: a few words, or a dozen characters."""
    return len(text.split()) >= _MIN_HEADLINE_WORDS or (not text.isascii() and len(text) >= 12)
