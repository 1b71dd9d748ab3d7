"""When the page says its article was last changed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

_MODIFIED_META = (
    "article:modified_time",
    "article:modified:time",
    "og:updated_time",
    "datemodified",
    "last-modified",
    "dcterms.modified",
    "dc.date.modified",
    "lastmod",
    "parsely-updated",
)


def find_modified_date(
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    parse: Callable[[str], datetime | None],
) -> datetime | None:
    """JSON-LD dateModified, else the modified-time meta tags, read with the page's `parse`."""
    values = [a.get("dateModified") for a in articles]
    values += [value for key in _MODIFIED_META for value in metas.get(key, ())]
    for value in values:
        parsed = parse(value) if isinstance(value, str) else None
        if parsed is not None:
            return parsed
    return None
