"""The article's description (lede): what the page offers as its summary."""

from __future__ import annotations

import html
from typing import Any

# Most explicit first: the social-card summary is written for readers, `description` is often
# the same text, twitter's a shorter copy.
_DESCRIPTION_META = ("og:description", "description", "twitter:description", "dc.description")
# A summary longer than this is a body pasted into the tag; it is cut at a word.
_MAX_CHARS = 1000
# A first paragraph shorter than this is a kicker, date line or credit, not the lede.
_MIN_LEDE_CHARS = 40


def find_description(metas: dict[str, list[str]], articles: list[dict[str, Any]]) -> str | None:
    """og:description, the description meta tags, else the JSON-LD article's description."""
    jsonld = (a.get("description") for a in articles)
    for raw in (*(v for key in _DESCRIPTION_META for v in metas.get(key, ())), *jsonld):
        if isinstance(raw, str):
            text = clean_description(raw)
            if text:
                return text
    return None


def clean_description(raw: str) -> str | None:
    """The text of a description: entities decoded, whitespace collapsed, at most ~1000 chars."""
    text = " ".join(html.unescape(raw).split())
    if len(text) > _MAX_CHARS:
        text = text[:_MAX_CHARS].rsplit(" ", 1)[0] + "\u2026"
    return text or None


def first_paragraph(paragraphs: list[str], title: str | None) -> str | None:
    """The lede: the first paragraph of the text that is not the headline and reads as prose."""
    for paragraph in paragraphs:
        if paragraph == title or len(paragraph) < _MIN_LEDE_CHARS:
            continue  # the headline, a kicker, a date line, a photo credit
        return clean_description(paragraph)
    return None
