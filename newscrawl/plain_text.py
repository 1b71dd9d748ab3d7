"""Titles from feeds and sitemaps as plain text: markup stripped, entities decoded once."""

from __future__ import annotations

from w3lib.html import remove_tags, replace_entities


def to_plain_text(value: str | None) -> str | None:
    """Plain text of an HTML-ish value (`It&#8217;s Q&amp;A` -> `It’s Q&A`); None when blank.

    Markup goes before entities are decoded, so an escaped `&lt;b&gt;` stays visible text.
    """
    if not value:
        return None
    text = replace_entities(remove_tags(value), remove_illegal=True)
    text = " ".join(text.split())
    return text or None
