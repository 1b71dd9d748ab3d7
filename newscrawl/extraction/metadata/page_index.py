"""One walk of the page: the elements metadata reads, and its meta tags."""

from __future__ import annotations

from dataclasses import dataclass

from lxml.html import HtmlElement

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.metadata.markers import _MARKERS
from newscrawl.extraction.tag_sets import MARKED_TAGS, METADATA_TAGS

# The compiled scan (see compiled_loops): the elements the Python searches find, in one walk.
_walk = compiled_loops.node_walk
_compiled_scan = None if _walk is None else _walk.scan_elements
_compiled_meta_contents = None if _walk is None else _walk.meta_contents
# Whether extract_metadata finds its elements with the compiled scan.
COMPILED_SCAN: bool = _compiled_scan is not None
TagIndex = dict[str, list[HtmlElement]]


@dataclass(frozen=True)
class MarkedElements:
    """The elements metadata looks for, from one walk of the page (`scan_elements`)."""

    tags: TagIndex
    # Elements with rel or itemprop "author", in document order, once each.
    authors: list[HtmlElement]
    # Elements with itemprop "datePublished" and `<time pubdate>`, in document order.
    dates: list[HtmlElement]
    # `MARKED_TAGS` elements whose class or id may hold a byline or date marker: a superset of
    # those `_is_byline_marker` and `_is_date_marker` accept (they still decide), in document
    # order.
    bylines: list[HtmlElement]


def scan_elements(root: HtmlElement) -> MarkedElements | None:
    """What metadata's element searches find, from one compiled walk; None without it.

    None also when the compiled scan declines the page (shapes the HTML parser never makes):
    the callers then search as before.
    """
    if _compiled_scan is None:
        return None
    found = _compiled_scan(root, METADATA_TAGS, MARKED_TAGS, _MARKERS)
    return MarkedElements(*found) if found is not None else None


def index_tags(root: HtmlElement) -> TagIndex:
    """The elements of each tag metadata reads, in document order, from one walk."""
    tags: TagIndex = {tag: [] for tag in METADATA_TAGS}
    for element in root.iter(*METADATA_TAGS):
        found = tags.get(element.tag)
        if found is None:
            # A name spelled otherwise (a namespace) matched: gather tag by tag, as before.
            return {tag: list(root.iter(tag)) for tag in METADATA_TAGS}
        found.append(element)
    return tags


def read_meta_tags(root: HtmlElement, *, tags: TagIndex | None = None) -> dict[str, list[str]]:
    """Map each lower-cased meta name/property/itemprop to its non-empty contents, in order."""
    elements = list(root.iter("meta")) if tags is None else tags["meta"]
    if _compiled_meta_contents is not None:
        return _compiled_meta_contents(elements)
    return _read_meta_tags_python(elements)


def _read_meta_tags_python(elements: list[HtmlElement]) -> dict[str, list[str]]:
    """`read_meta_tags`' loop in Python: the reference for `_node_walk.meta_contents`."""
    metas: dict[str, list[str]] = {}
    for meta in elements:
        # Byte names: lxml need not encode them on every call.
        content = meta.get(b"content")
        if content is None or not content.strip():
            continue
        for attribute in (b"property", b"name", b"itemprop", b"http-equiv"):
            key = meta.get(attribute)
            if key:
                metas.setdefault(key.strip().lower(), []).append(content.strip())
    return metas
