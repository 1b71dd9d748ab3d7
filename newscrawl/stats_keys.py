"""Stats keys: every newscrawl counter is named newscrawl/<component>/<event>."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any


def build_stats_key(component: str, event: str) -> str:
    """The stats key of an event counted by a component."""
    return f"newscrawl/{component}/{event}"


def sum_spider_events(stats: Mapping[str, Any], events: Collection[str]) -> int:
    """The sum of the newscrawl/<component>/<event> counters of the given events, over all
    components (both spiders count page_fetched, feed_failed... under their own name)."""
    total = 0
    for key, value in stats.items():
        parts = key.split("/")
        if len(parts) == 3 and parts[0] == "newscrawl" and parts[2] in events:
            total += int(value or 0)
    return total
