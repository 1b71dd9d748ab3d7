"""Assertions that rendered article HTML is safe: shared by the clean-HTML and property tests."""

from __future__ import annotations

import re

import lxml.html

from newscrawl.extraction.clean_html import ALLOWED_ATTRIBUTES, KEPT_TAGS

_DANGEROUS_MARKUP = re.compile(
    r"<\s*/?\s*(?:script|style|iframe|frame|object|embed|svg|math|base|meta|link|form|input|"
    r"button|textarea|template|applet|noscript)\b|\son[a-z]+\s*=|srcdoc|expression\s*\(",
    re.IGNORECASE,
)
# The writer escapes "<" in text and ">" in attribute values, so this finds exactly the tags.
_TAG = re.compile(r"<[^>]*>")
# Quoted attribute values: blanked before the check, as text is left out.
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_SAFE_SCHEMES = {"http", "https", "mailto"}
_IGNORED = re.compile(r"[\x00-\x20\x7f-\x9f]+")


def assert_safe_html(html: str) -> None:
    """Fail unless the HTML holds only allowed tags, attributes and URL schemes."""
    # Markup in text or attribute values is escaped (`&lt;p onclick=...`) and harmless: only
    # tag and attribute names are checked; the tree check below judges the values.
    names = " ".join(_QUOTED.sub('""', tag) for tag in _TAG.findall(html))
    assert not _DANGEROUS_MARKUP.search(names), html
    if not html.strip():
        return
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    for element in root.iter():
        if element is root:
            continue
        assert isinstance(element.tag, str), f"comment or PI in output: {html}"
        assert element.tag in KEPT_TAGS, f"tag {element.tag!r} in {html}"
        allowed = ALLOWED_ATTRIBUTES.get(element.tag, ())
        for name, value in element.attrib.items():
            assert name in allowed, f"attribute {name!r} on {element.tag} in {html}"
            if name in {"href", "src", "cite"}:
                url = _IGNORED.sub("", value).lower()
                scheme = url.split(":", 1)[0] if re.match(r"^[a-z][a-z0-9+.-]*:", url) else ""
                assert scheme in _SAFE_SCHEMES or scheme == "", f"{name}={value!r} in {html}"
                assert not url.startswith(("javascript", "vbscript", "data")), html
