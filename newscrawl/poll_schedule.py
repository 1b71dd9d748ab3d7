"""When to poll a feed again: interval parsing, the feed's own hints, adaptation and backoff.

Pure functions (lxml only), so the schedule can be tested without a crawl or a database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

SYNDICATION_NS = "http://purl.org/rss/1.0/modules/syndication/"
UNIT_SECONDS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
PERIOD_SECONDS = {
    "hourly": 3600.0,
    "daily": 86400.0,
    "weekly": 7 * 86400.0,
    "monthly": 30 * 86400.0,
    "yearly": 365 * 86400.0,
}
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.IGNORECASE)
# A share of new entries above this shortens the interval, none at all lengthens it.
BUSY_SHARE = 0.5
SHORTEN_FACTOR = 0.5
LENGTHEN_FACTOR = 1.5


class IntervalError(ValueError):
    """A poll interval that is not a positive number with an optional s/m/h/d unit."""


def parse_interval(text: str | float | int) -> float:
    """Seconds in "30s", "15m", "1h", "1d" or a bare number of seconds."""
    if isinstance(text, int | float):
        seconds = float(text)
    else:
        match = _INTERVAL.match(text)
        if match is None:
            raise IntervalError(f"{text!r} is no interval such as 30s, 15m, 1h or 1d")
        seconds = float(match.group(1)) * UNIT_SECONDS[(match.group(2) or "s").lower()]
    if seconds <= 0:
        raise IntervalError(f"{text!r} is not a positive interval")
    return seconds


def read_declared_interval(body: bytes) -> float | None:
    """The shortest poll interval a feed asks for: RSS <ttl> or sy:updatePeriod/Frequency."""
    parser = etree.XMLParser(
        recover=True, resolve_entities=False, no_network=True, huge_tree=False
    )
    try:
        root = etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root is None:
        return None
    candidates: list[float] = []
    ttl = _first_text(root, "ttl")
    if ttl is not None and ttl.isdigit() and int(ttl) > 0:
        candidates.append(int(ttl) * 60.0)
    period = _first_text(root, f"{{{SYNDICATION_NS}}}updatePeriod")
    if period is not None and period.lower() in PERIOD_SECONDS:
        frequency_text = _first_text(root, f"{{{SYNDICATION_NS}}}updateFrequency") or "1"
        frequency = int(frequency_text) if frequency_text.isdigit() else 1
        candidates.append(PERIOD_SECONDS[period.lower()] / max(frequency, 1))
    return max(candidates) if candidates else None


def _first_text(root: etree._Element, tag: str) -> str | None:
    # Only the feed level counts (the Atom root, the RSS <channel>), never an item's element.
    for parent in (root, *root.iterchildren("{*}channel")):
        element = parent.find(tag)
        if element is not None and element.text and element.text.strip():
            return element.text.strip()
    return None


@dataclass(frozen=True)
class PollBounds:
    """The base interval of a crawl (`every`) and the range adaptation may move within."""

    every: float
    minimum: float
    maximum: float

    def limits(self, declared: float | None) -> tuple[float, float]:
        """(lowest, highest) interval for a feed; its own ttl or update period is a floor."""
        lowest = min(self.minimum, self.every)
        if declared is not None:
            lowest = max(lowest, declared)
        return lowest, max(self.maximum, self.every, lowest)


def compute_next_interval(
    current: float | None,
    *,
    entries: int,
    new_entries: int,
    bounds: PollBounds,
    declared: float | None = None,
) -> float:
    """Adapt a feed's interval to the share of new entries it had, within its limits."""
    interval = current if current is not None and current > 0 else bounds.every
    share = new_entries / entries if entries else 0.0
    if share > BUSY_SHARE:
        interval *= SHORTEN_FACTOR
    elif new_entries == 0:
        interval *= LENGTHEN_FACTOR
    lowest, highest = bounds.limits(declared)
    return min(max(interval, lowest), highest)


def compute_backoff(failures: int, *, interval: float, bounds: PollBounds) -> float:
    """Seconds to wait after the n-th consecutive failure: doubling, capped at the maximum."""
    _, highest = bounds.limits(None)
    return float(min(interval * 2 ** max(failures - 1, 0), highest))
