"""A structural check that stored article HTML is sanitised: tags, attributes, URL schemes."""

from __future__ import annotations

import re

import lxml.html

from newscrawl.extraction.clean_html import ALLOWED_ATTRIBUTES, KEPT_TAGS

URL_ATTRIBUTES = frozenset({"href", "src", "cite"})
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):")
# Browsers skip these inside URLs, so "jav\tascript:" is still javascript:.
_IGNORED_IN_URLS = re.compile(r"[\x00-\x20\x7f-\x9f]+")


def assert_structurally_safe(html: str) -> None:
    """Fail unless the parsed HTML keeps only allowed tags, attributes and URL schemes.

    Checked on the tree, not the text: an article may well quote "onerror=" as prose.
    """
    if not html.strip():
        return
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    for element in root.iterdescendants():
        assert isinstance(element.tag, str), f"comment or PI kept: {html!r}"
        assert element.tag in KEPT_TAGS, f"tag {element.tag!r} kept: {html!r}"
        allowed = ALLOWED_ATTRIBUTES.get(element.tag, ())
        for name, value in element.attrib.items():
            assert name in allowed, f"attribute {name!r} on {element.tag}: {html!r}"
            if name in URL_ATTRIBUTES:
                match = _SCHEME.match(_IGNORED_IN_URLS.sub("", value).lower())
                assert match is None or match.group(1) in SAFE_SCHEMES, f"{value!r}: {html!r}"
