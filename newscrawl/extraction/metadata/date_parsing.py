"""Dates read from strings: ISO and RFC values, date lines and URL paths."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from newscrawl.extraction.published_dates import read_time_after

_URL_DATE = re.compile(
    r"[/_-]((?:19|20)\d{2})[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?:/|[_-]|\.html?|$)"
)
# Year first, with dashes or (in some CMS meta tags) slashes: "2005/10/13 10:36:40".
_ISO_DATE = re.compile(
    r"((?:19|20)\d{2})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?)?"
)
_MONTH_NAMES = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d{2})"
# "March 4, 2009", "Dec. 4 2013" and "4 December 2013", "4th of July, 2009": English month names.
_TEXT_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+{_ORDINAL},?|{_ORDINAL}\s+(?:of\s+)?{_MONTH},?)\s+{_YEAR}\b",
    re.IGNORECASE,
)
_EARLIEST_YEAR = 1995
# Pre-checks of `parse_date_line`: `\d` is what the patterns' digits match.
_DIGIT = re.compile(r"\d")
_YEAR_DIGITS = re.compile(r"(?:19|20)\d{2}")
# Day and month in digits ("29.03.2017", "(2/18/2002)", "8/19/09"): read only when one of the
# two is above 12, so that the order is not a guess. Two-digit years are 1940-2039.
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,2})([./])(\d{1,2})\2((?:19|20)?\d{2})(?!\d)")


def parse_date(value: str | None) -> datetime | None:
    """Parse an ISO 8601 / RFC 2822 / compact date string; without an offset it stays naive."""
    if not value:
        return None
    value = value.strip()
    parsed: datetime | None = None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None:
        match = _ISO_DATE.search(value)
        if match:
            parsed = _datetime_from_match(match)
    if parsed is None:
        try:
            parsed = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            parsed = None
    if parsed is None and re.fullmatch(r"(?:19|20)\d{6}", value):
        parsed = _safe_datetime(int(value[:4]), int(value[4:6]), int(value[6:]))
    if parsed is None or not 1990 <= parsed.year <= 2100:
        return None
    return parsed


def _safe_datetime(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime | None:
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None


def _datetime_from_match(match: re.Match[str]) -> datetime | None:
    year, month, day, hour, minute, second, zone = match.groups()
    parsed = _safe_datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
    )
    if parsed is None or not zone:
        return parsed
    if zone == "Z":
        return parsed.replace(tzinfo=UTC)
    try:
        return datetime.fromisoformat(parsed.isoformat() + zone[:3] + ":" + zone[-2:])
    except ValueError:
        return parsed


def _url_date(address: str | None) -> datetime | None:
    """The date in a URL's path ("/2018/02/09/story.html", "/story-20191115/"), if any."""
    if not address:
        return None
    match = _URL_DATE.search(urlsplit(address).path)
    if not match:
        return None
    return _safe_datetime(int(match[1]), int(match[2]), int(match[3]))


def parse_date_line(text: str) -> datetime | None:
    """The first date in a line of text, or None.

    Read year first in digits, with an English month name, or as day and month in digits
    when only one order is possible.
    """
    if not _DIGIT.search(text):
        return None  # every pattern needs a digit: most lines have none
    # `_ISO_DATE` and `_TEXT_DATE` need a four-digit year: skipping them (the costly searches)
    # where there is none finds the same matches.
    searches = (
        (_ISO_DATE, _TEXT_DATE, _NUMERIC_DATE) if _YEAR_DIGITS.search(text) else (_NUMERIC_DATE,)
    )
    matches = [match for match in (pattern.search(text) for pattern in searches) if match]
    if not matches:
        return None
    first = min(matches, key=lambda match: match.start())
    if first.re is _ISO_DATE:
        found = _datetime_from_match(first)
    elif first.re is _TEXT_DATE:
        month = _MONTH_NAMES[(first[1] or first[4]).lower()]
        found = _safe_datetime(int(first[5]), month, int(first[2] or first[3]))
    else:
        one, two, year = int(first[1]), int(first[3]), int(first[4])
        if year < 100:
            year += 2000 if year < 40 else 1900
        if one > 12 >= two:
            found = _safe_datetime(year, two, one)
        elif two > 12 >= one:
            found = _safe_datetime(year, one, two)
        else:
            return None  # "03.04.2009": April 3rd or March 4th
    if found is None or found.year < _EARLIEST_YEAR:
        return None
    return found if first.re is _ISO_DATE else read_time_after(text[first.end() :], found)
