"""Dates as feeds and sitemaps write them, to aware datetimes."""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime

from dateutil import parser as date_parser

_YEAR = re.compile(r"\d{4}")


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
        return email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _parse_loose_date(text: str) -> datetime | None:
    if not _YEAR.search(text):
        return None
    try:
        return date_parser.parse(text, default=datetime(2000, 1, 1))
    except (ValueError, OverflowError, date_parser.ParserError):
        return None
