"""Dates as feeds and sitemaps write them, to aware datetimes."""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime, timedelta, timezone

from dateutil import parser as date_parser

_YEAR = re.compile(r"\d{4}")
# Zone names feeds write instead of an offset ("10:20:30 CEST"): email.utils knows only the
# US ones and leaves the others naive, which would be read as UTC. Only unambiguous names.
_ZONE_OFFSETS = {
    "CET": 1, "MEZ": 1, "CEST": 2, "MESZ": 2, "BST": 1, "WET": 0, "WEST": 1, "EET": 2,
    "EEST": 3, "MSK": 3, "JST": 9, "KST": 9, "HKT": 8, "SGT": 8, "AEST": 10, "AEDT": 11,
    "NZST": 12, "NZDT": 13,
}
_ZONES = {name: timezone(timedelta(hours=hours)) for name, hours in _ZONE_OFFSETS.items()}
_TRAILING_ZONE = re.compile(r"\s([A-Z]{3,4})$")
# "02.01.2024" is the 2nd of January wherever dots separate the day, month and year.
_DOTTED_DAY_FIRST = re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b")


def parse_w3c_datetime(value: str | None) -> datetime | None:
    """Parse a sitemap or feed date; naive means UTC, None when it is no date.

    W3C/ISO 8601 in its variants ("2026-11-22", "2026-11", "2026-11-22T10:00:00.5+01:00",
    "20261122T100000Z"), RFC 822 ("Sun, 22 Nov 2026 10:00:00 GMT") and other spelled-out
    dates that name a four-digit year.
    """
    if not value:
        return None
    text = " ".join(value.split())
    if not text:
        return None
    parsed = _parse_iso_date(text) or _parse_rfc822_date(text) or _parse_loose_date(text)
    if parsed is None:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _parse_iso_date(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text[:-1] + "+00:00" if text[-1] in "Zz" else text)
    except ValueError:
        pass
    try:
        return date_parser.isoparse(text)
    except (ValueError, OverflowError):
        return None


def _parse_rfc822_date(text: str) -> datetime | None:
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:
        zone = _TRAILING_ZONE.search(text)
        if zone and zone[1] in _ZONES:
            return parsed.replace(tzinfo=_ZONES[zone[1]])
    return parsed


def _parse_loose_date(text: str) -> datetime | None:
    if not _YEAR.search(text):
        return None
    try:
        return date_parser.parse(
            text,
            default=datetime(2000, 1, 1),
            dayfirst=bool(_DOTTED_DAY_FIRST.search(text)),
            tzinfos=_ZONES,
        )
    except (ValueError, OverflowError, date_parser.ParserError):
        return None
