"""NeighbourSettings: how many neighbours a group needs, and when its template is learned again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from newscrawl import settings as project_settings


@dataclass(frozen=True)
class NeighbourSettings:
    """NEWSCRAWL_NEIGHBOURS, NEWSCRAWL_MIN_NEIGHBOURS and the template's age and page limits."""

    neighbours: int
    min_neighbours: int
    # None: a template never ages out.
    template_max_age: timedelta | None
    template_max_pages: int


def read_neighbour_settings(settings: BaseSettings) -> NeighbourSettings:
    """The buffer's settings, checked; NotConfigured names the one that is out of range."""
    neighbours = settings.getint("NEWSCRAWL_NEIGHBOURS", project_settings.NEWSCRAWL_NEIGHBOURS)
    min_neighbours = settings.getint(
        "NEWSCRAWL_MIN_NEIGHBOURS", project_settings.NEWSCRAWL_MIN_NEIGHBOURS
    )
    if neighbours < 1:
        raise NotConfigured(f"NEWSCRAWL_NEIGHBOURS must be at least 1, not {neighbours}")
    if not 1 <= min_neighbours <= neighbours:
        raise NotConfigured(
            f"NEWSCRAWL_MIN_NEIGHBOURS must be between 1 and NEWSCRAWL_NEIGHBOURS"
            f" ({neighbours}), not {min_neighbours}"
        )
    max_age = settings.getfloat(
        "NEWSCRAWL_TEMPLATE_MAX_AGE", project_settings.NEWSCRAWL_TEMPLATE_MAX_AGE
    )
    return NeighbourSettings(
        neighbours=neighbours,
        min_neighbours=min_neighbours,
        template_max_age=timedelta(seconds=max_age) if max_age > 0 else None,
        template_max_pages=settings.getint(
            "NEWSCRAWL_TEMPLATE_MAX_PAGES", project_settings.NEWSCRAWL_TEMPLATE_MAX_PAGES
        ),
    )
