"""The headline: og:title, JSON-LD, h1 and `<title>`, cleaned of site names."""

from __future__ import annotations

import html
import re
from typing import Any

from lxml.html import HtmlElement

from newscrawl.extraction.metadata.field_text import _clean_text
from newscrawl.extraction.metadata.page_index import TagIndex, index_tags
from newscrawl.extraction.titles import is_long_enough, strip_title_furniture

_TITLE_SEPARATORS = re.compile(r"\s+[|\-\u2013\u2014\u00bb\u00b7]+\s+|\s*[|\u00bb]\s*")
_DOMAIN_PREFIX = re.compile(r"^\s*[\w-]+(?:\.[\w-]+)+\s*:\s+")
_HEADLINE_WORD = re.compile(r"\w+")
_MAX_H1 = 5


def split_title(title: str) -> str:
    """Return the longest segment of a `<title>` like "BBC NEWS | Technology | Headline"."""
    segments = [segment.strip() for segment in _TITLE_SEPARATORS.split(title) if segment.strip()]
    return max(segments, key=len) if segments else title.strip()


_SITE_SEPARATORS = frozenset("|-\u2013\u2014\u00bb\u00b7:")


def _strip_site_name(title: str, site_name: str | None) -> str:
    """Drop the site's name from the start or end of a title ("Headline | Site")."""
    if not site_name:
        return title
    if site_name.isascii() and site_name == site_name.strip():
        stripped = _strip_ascii_site_name(title, site_name)
        if stripped is not None:
            return stripped.strip() or title
    return _strip_site_name_pattern(title, site_name)


def _strip_site_name_pattern(title: str, site_name: str) -> str:
    """`_strip_site_name` with a pattern built for the site (compiling it costs ~0.2 ms)."""
    name = re.escape(site_name)
    separator = r"\s*[|\-\u2013\u2014\u00bb\u00b7:]+\s*"
    pattern = rf"^\s*{name}{separator}|{separator}{name}\s*$"
    return re.sub(pattern, "", title, flags=re.IGNORECASE).strip() or title


def _strip_ascii_site_name(title: str, name: str) -> str | None:
    """What the pattern of `_strip_site_name_pattern` leaves, found without compiling it.

    The name is ASCII and unpadded, so it matches exactly len(name) characters; where those
    are not ASCII (IGNORECASE also folds "ſ" and the Kelvin sign), answer None: the caller
    uses the pattern.
    """
    size = len(name)
    lowered = name.lower()
    # "^\s*NAME SEPARATOR": the name right after the leading space, then a separator run.
    start = len(title) - len(title.lstrip())
    kept_from = 0
    head = title[start : start + size]
    if len(head) == size:
        if not head.isascii():
            return None
        if head.lower() == lowered:
            end = _skip_space(title, start + size)
            after = _skip_separators(title, end)
            if after > end:
                kept_from = _skip_space(title, after)
    # "SEPARATOR NAME \s*$", searched after what the first alternative consumed.
    name_end = len(title.rstrip())
    name_start = name_end - size
    if name_start < kept_from:
        return title[kept_from:]
    tail = title[name_start:name_end]
    if not tail.isascii():
        return None
    if tail.lower() != lowered:
        return title[kept_from:]
    before = name_start
    while before > kept_from and title[before - 1].isspace():
        before -= 1
    separator_end = before
    while before > kept_from and title[before - 1] in _SITE_SEPARATORS:
        before -= 1
    if before == separator_end:
        return title[kept_from:]  # no separator between the text and the name
    while before > kept_from and title[before - 1].isspace():
        before -= 1
    return title[kept_from:before]


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _skip_separators(text: str, index: int) -> int:
    while index < len(text) and text[index] in _SITE_SEPARATORS:
        index += 1
    return index


def _strip_domain_prefix(title: str) -> str:
    """Drop a "Forbes.com: " style prefix naming the site rather than the story."""
    match = _DOMAIN_PREFIX.match(title)
    return title[match.end() :] if match and match.end() < len(title) else title


def _headline_words(text: str) -> set[str]:
    return set(_HEADLINE_WORD.findall(text.lower()))


def find_headline(
    root: HtmlElement,
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    site_name: str | None = None,
    *,
    tags: TagIndex | None = None,
) -> str | None:
    """Return the headline: og:title, JSON-LD headline or an h1, else the `<title>`'s core.

    When the page has a `<title>`, the candidate sharing the most words with it wins (and must
    share at least half of its own): section names ("Entertainment") and logo text in an h1
    share few, while the real headline is nearly always echoed in `<title>`.
    """
    if tags is None:
        tags = index_tags(root)
    # `.//title`: the first one below the root.
    title_element = next((t for t in tags["title"] if t is not root), None)
    page_title = _clean_text(title_element.text_content()) if title_element is not None else None
    title_words = _headline_words(page_title) if page_title else set()
    # Read once: both the candidates and the h1 check below need them.
    h1_texts = [h1.text_content() for h1 in tags["h1"][:_MAX_H1]]
    raw_candidates: list[str] = [
        *metas.get("og:title", ()),
        *metas.get("twitter:title", ()),
        *(a["headline"] for a in articles if isinstance(a.get("headline"), str)),
        *h1_texts,
    ]
    candidates: list[str] = []
    # og:title, twitter:title and the JSON-LD headline are often one string: a repeat would
    # only become a repeated candidate, and a repeat never beats its first (ties keep the
    # earlier one), so each string is cleaned and scored once.
    for raw in dict.fromkeys(raw_candidates):
        text = _clean_text(html.unescape(raw))
        if not text or len(text) <= 3:
            continue
        text = _strip_domain_prefix(_strip_site_name(text, site_name))
        if site_name and text.lower() == site_name.lower():
            continue
        candidates.append(text)
    h1s = [text for raw in h1_texts if (text := _clean_text(raw))]
    declared = _declared_headline(metas, articles, site_name, h1s, page_title, title_words)
    if declared is not None:
        return declared
    if not page_title:
        return strip_title_furniture(candidates[0]) if candidates else None
    candidates.append(_strip_domain_prefix(split_title(html.unescape(page_title))))
    best, best_shared = candidates[-1], 0
    for candidate in candidates:
        words = _headline_words(candidate)
        shared = len(words & title_words)
        # The fullest echo of <title> wins; ties go to the more explicit source (og:title).
        if words and shared >= 0.5 * len(words) and shared > best_shared:
            best, best_shared = candidate, shared
    return strip_title_furniture(best)


def _declared_headline(
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    site_name: str | None,
    h1s: list[str],
    page_title: str | None,
    title_words: set[str],
) -> str | None:
    """The headline the publisher declares (og:title, then JSON-LD, then twitter:title).

    The h1 on the page often carries a kicker, a live label or a section fused to it
    ("Kultur : ...", "Premier League Rückschlag ..."), and some h1s are another story's: the
    declared headline is the one the publisher chose. The first declared headline an h1 shows
    wins, as the h1 spells it; else og:title's. One counts only when it shares a word with
    `<title>` or an h1.
    """
    page_words = title_words.union(*(_headline_words(h1) for h1 in h1s))
    declared = [
        *metas.get("og:title", ())[:1],
        *(a["headline"] for a in articles[:1] if isinstance(a.get("headline"), str)),
        *metas.get("twitter:title", ())[:1],
    ]
    texts = [text for raw in declared if (text := _clean_text(html.unescape(raw)))]
    found = [headline for text in texts if (headline := _checked_headline(
        text, texts, site_name, page_title, page_words)) is not None]
    shown_keys = {_headline_key(strip_title_furniture(h1)): h1 for h1 in h1s}
    # A declared headline the page shows as its h1 is the headline both agree on; og:title
    # alone may be a social-media variant ("16-0! All six British players win...").
    for headline in found:
        h1 = shown_keys.get(_headline_key(headline))
        if h1 is not None:
            return strip_title_furniture(h1)
    return found[0] if found else None


def _checked_headline(
    text: str, texts: list[str], site_name: str | None, page_title: str | None,
    page_words: set[str],
) -> str | None:
    """One declared headline cleaned of site names and furniture, or None when it is none."""
    if len(text) <= 3:
        return None
    # An og:title copied from `<title>` keeps its furniture ("... | Bhopal News - The Times of
    # India"): a declared headline it contains is the headline without it.
    inner = [t for t in texts if t != text and is_long_enough(t) and t in text]
    if inner and _headline_key(text) == _headline_key(page_title or ""):
        text = inner[0]
    text = _strip_domain_prefix(_strip_site_name(text, site_name))
    if site_name and text.lower() == site_name.lower():
        return None
    headline = strip_title_furniture(text)
    if not is_long_enough(headline):
        return None  # a section, a site's name or a cut-off headline ("Flood")
    words = _headline_words(headline)
    # A generic og:title ("Home", a section) shares no word with the page's title or h1s; an
    # SEO rewrite of the headline in `<title>` still shares some.
    if not words or (page_words and not words & page_words):
        return None
    return headline


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         "\u00ad": None})


def _headline_key(text: str) -> str:
    """A headline compared without case, spacing, soft hyphens or curly quotes."""
    return " ".join(text.translate(_QUOTES).casefold().split())
