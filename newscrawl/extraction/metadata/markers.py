"""Elements whose class, id, rel or itemprop mark a byline or a date."""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

_BYLINE_MARKERS = ("byline", "author", "writer", "contributor", "reporter")
_BYLINE_MARKER = re.compile("|".join(_BYLINE_MARKERS))
# Class or id words that name a date ("date", "timestamp", "published", "posted-on").
_DATE_MARKERS = ("date", "time", "publish", "posted", "meta", "byline", "footer")
_DATE_MARKER = re.compile("|".join(_DATE_MARKERS))
# Both kinds of marked element come from one walk (`scan_elements`).
_MARKERS = tuple(dict.fromkeys(_BYLINE_MARKERS + _DATE_MARKERS))
# Compiled once (`root.xpath(text)` compiles on every call). Selecting the attribute nodes and
# then their elements is faster in libxml2 than testing attributes on every element.
_AUTHOR_ATTRIBUTES = etree.XPath("//@rel[.='author'] | //@itemprop[.='author']")
_MARKED_DATES = etree.XPath('//@itemprop[.="datePublished"]/.. | //time[@pubdate]')
# Its first half: a page without `<time pubdate>` (nearly all) needs one walk fewer.
_ITEMPROP_DATES = etree.XPath('//@itemprop[.="datePublished"]/..')
_BYLINE_NOISE_CLASS = re.compile(r"comment|avatar|bio|img|image|photo|social|share", re.I)


def _marker_text(element: HtmlElement) -> str | None:
    """The element's class and id, lower-cased, or None when it has neither (most elements)."""
    # Byte names skip lxml's encoding of the name on each of these many calls.
    class_name, element_id = element.get(b"class"), element.get(b"id")
    if class_name is None and element_id is None:
        return None
    return f"{class_name or ''} {element_id or ''}".lower()


def _is_date_marker(element: HtmlElement) -> bool:
    """Whether the element's class or id names a date."""
    marker = _marker_text(element)
    return marker is not None and bool(_DATE_MARKER.search(marker))


def _is_byline_marker(element: HtmlElement) -> bool:
    """Whether the element's class or id names a byline (and not a comment, photo...)."""
    marker = _marker_text(element)
    if marker is None:
        return False
    return bool(_BYLINE_MARKER.search(marker)) and not _BYLINE_NOISE_CLASS.search(marker)
