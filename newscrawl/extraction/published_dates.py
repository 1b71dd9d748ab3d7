"""Choosing the publish date among a page's candidates, and reading a time after a date.

A page often says its date several times: a bare day in the URL or JSON-LD, the full time
with its offset in a meta tag or `<time>`. The most explicit source is tried first, but when
it gives only a day, or a time without an offset, a later candidate on the same day that says
more (a time, an offset) is the better answer. A date without an offset stays naive: it is
the page's local time, and labelling it UTC would move it by hours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, time, timedelta, timezone
from itertools import islice

# Candidates read after the first for one that says more: the page's few structured dates
# come first, and a date line far down is more likely another story's.
_MAX_LOOKAHEAD = 8
# "11:16", "3:30 pm", "um 14.05 Uhr", "à 10h30", optionally "UTC"/"GMT"/"+02:00"; directly
# after the date (a separator, "at", "um", "à", "-", "|" between).
_TIME_AFTER_DATE = re.compile(
    r"^\s*(?:,|\||-|\u2013|/|\bat\b|\bum\b|\bà\b|\ba las\b|\balle\b|\bo\b|\bkl\.?)?\s*"
    r"(?:,\s*)?(\d{1,2})[:.h](\d{2})(?::(\d{2}))?\s*(?:(am|pm|a\.m\.|p\.m\.)|uhr|h)?"
    r"\s*(utc|gmt|z\b|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE,
)


def has_time(value: datetime) -> bool:
    """Whether the value gives a time of day (a bare day parses to a naive midnight)."""
    return value.tzinfo is not None or value.time() != time(0, 0)


def _says_more(candidate: datetime, first: datetime) -> bool:
    """Whether `candidate` is the same publication as `first`, with a time or offset it lacks."""
    if candidate.date() != first.date():
        return False
    if not has_time(first):
        return has_time(candidate) and candidate.time() != time(0, 0)
    # `first` has a time but no offset: only the same clock time with its offset is the same.
    return (
        candidate.tzinfo is not None
        and (candidate.hour, candidate.minute) == (first.hour, first.minute)
    )


def choose_published_date(candidates: Iterable[datetime]) -> datetime | None:
    """The first candidate, or a later one on its day that adds the time or the offset.

    Candidates come most explicit source first and are read lazily: a first one with its
    offset ends the search at once.
    """
    found = iter(candidates)
    first = next(found, None)
    if first is None or first.tzinfo is not None:
        return first
    best = first
    for candidate in islice(found, _MAX_LOOKAHEAD):
        if _says_more(candidate, best):
            best = candidate
            if best.tzinfo is not None:
                break
    return best


def read_time_after(text: str, day: datetime) -> datetime:
    """`day` with the time of day that follows its date in `text` ("June 3, 2024 10:20 pm")."""
    match = _TIME_AFTER_DATE.match(text)
    if not match:
        return day
    hour, minute, second = int(match[1]), int(match[2]), int(match[3] or 0)
    meridiem = (match[4] or "").lower().replace(".", "")
    if meridiem:
        if not 1 <= hour <= 12:
            return day
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return day
    found = day.replace(hour=hour, minute=minute, second=second)
    zone = (match[5] or "").lower()
    if zone in ("utc", "gmt", "z"):
        return found.replace(tzinfo=UTC)
    if zone:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        if offset < timedelta(hours=15):
            return found.replace(tzinfo=timezone(sign * offset))
    return found
