"""URLs safe to write into clean HTML: http(s) links and images, mailto links, never a script."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_IMAGE_SCHEMES = frozenset({"http", "https"})
# Browsers drop tabs and newlines anywhere in a URL and trim control characters and spaces
# at its ends, so "java\tscript:" still runs. Other control and invisible characters have
# no place in a link either: all of these go before the scheme is read.
_URL_IGNORED = re.compile(r"[\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2028\u2029\ufeff]+")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


def sanitise_url(value: str | None, *, base_url: str | None, image: bool = False) -> str | None:
    """Return an absolute (or plainly relative) http(s)/mailto URL, or None when unsafe."""
    if value is None:
        return None
    # Printable ASCII holds none of the ignored characters: most URLs skip the substitution.
    url = value if value.isascii() and value.isprintable() else _URL_IGNORED.sub("", value)
    url = url.strip(" ").replace(" ", "%20")
    if not url:
        return None
    # A backslash counts as a slash in browsers, which would turn "\\evil" into "//evil".
    url = url.replace("\\", "/")
    match = _SCHEME.match(url)
    if match is None and base_url:
        try:
            url = urljoin(base_url, url)
        except ValueError:
            return None
        match = _SCHEME.match(url)
    allowed = _IMAGE_SCHEMES if image else _LINK_SCHEMES
    if match is not None:
        scheme = match.group(1).lower()
        if scheme not in allowed:
            return None
        if scheme != "mailto" and not url[len(scheme) + 1 :].startswith("//"):
            return None  # "https:javascript:..." has no host: nothing a reader should follow
        # urlsplit reads the scheme as `_SCHEME` does; what it adds is refusing a malformed
        # host: brackets that are no IPv6 address, or non-ASCII that normalises to a delimiter.
        if not url.isascii() or "[" in url or "]" in url:
            try:
                if urlsplit(url).scheme.lower() not in allowed:
                    return None
            except ValueError:
                return None
    elif ":" in url.split("/", 1)[0]:
        return None  # "foo:bar" with an odd scheme the regex did not take
    return url
