"""Whitespace cleaning of the text fields metadata reads."""

from __future__ import annotations

import re

_WHITESPACE = re.compile(r"\s+")


def _clean_text(text: str | None) -> str | None:
    if text is None:
        return None
    cleaned = _WHITESPACE.sub(" ", text).strip()
    return cleaned or None


def _first_text(*candidates: list[str] | str | None) -> str | None:
    for candidate in candidates:
        values = [candidate] if isinstance(candidate, str) or candidate is None else candidate
        for value in values:
            cleaned = _clean_text(value)
            if cleaned:
                return cleaned
    return None
