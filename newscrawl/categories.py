"""Site and category of a page, derived from its URL when the feed or sitemap says nothing."""

from __future__ import annotations

from urllib.parse import urlsplit

DEFAULT_CATEGORY = "general"


def site_from_url(url: str) -> str:
    """Return the site of a URL: host without a leading "www.", plus the port if one is given."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    host = host.removeprefix("www.")
    try:
        port = parts.port
    except ValueError:
        port = None
    # One port per site is how a single machine (the demo, tests) hosts several sites.
    return f"{host}:{port}" if port is not None else host


def category_from_url(url: str, segment: int = 0) -> str:
    """Return the `segment`-th directory of the URL path as a category, else DEFAULT_CATEGORY.

    Only directories count, never the last path segment (the article's own slug), and
    purely numeric segments (dates such as /2026/11/22/) are skipped: either would give
    every article its own (site, category) group and starve the neighbour buffer.
    """
    # A trailing slash ends the slug, it does not make it a directory (/2017/10/20/slug/).
    path = urlsplit(url).path.rstrip("/")
    directories = [part for part in path.split("/")[:-1] if part and not part.isdigit()]
    if 0 <= segment < len(directories):
        return normalize_category(directories[segment])
    return DEFAULT_CATEGORY


def normalize_category(name: str) -> str:
    """Return a category label in a stable form: stripped, lower case, inner spaces collapsed."""
    return " ".join(name.split()).lower()
