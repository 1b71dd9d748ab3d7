"""Stats keys: every newscrawl counter is named newscrawl/<component>/<event>."""

from __future__ import annotations


def build_stats_key(component: str, event: str) -> str:
    """The stats key of an event counted by a component."""
    return f"newscrawl/{component}/{event}"
