"""Check one URL taken from a feed, sitemap or robots.txt before a Request is built from it."""

from __future__ import annotations

from urllib.parse import urlsplit

# The sitemap protocol's limit on <loc>, and the width of the URL columns.
MAX_URL_LENGTH = 2048
WEB_SCHEMES = ("http", "https")


def find_url_problem(url: str) -> str | None:
    """Why `url` cannot be fetched ("not http(s)", "too long", ...), or None when it can."""
    if not url:
        return "empty"
    if len(url) > MAX_URL_LENGTH:
        return f"longer than {MAX_URL_LENGTH} characters"
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        return "control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as error:
        return f"unparsable ({error})"
    if parts.scheme.lower() not in WEB_SCHEMES:
        return f"scheme {parts.scheme!r} is not http(s)" if parts.scheme else "not absolute"
    if not parts.hostname:
        return "no host"
    return None
