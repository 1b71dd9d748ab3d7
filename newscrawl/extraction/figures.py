"""The article's figures, put back among its kept blocks as `<figure><img><figcaption>`.

Block selection keeps text: a figure has little or none, so its image is lost and its caption,
when kept, reads as a stray paragraph. The figures inside the article's region (the nearest
element holding every kept block, or the stretch between the first and the last kept block
when that is the whole page) go back at their place in the page, each rewritten to one image
with an absolute http(s) source and its caption as text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml.html import HtmlElement

from newscrawl.extraction.clean_html import clean_text
from newscrawl.extraction.document import Document
from newscrawl.extraction.safe_urls import sanitise_url
from newscrawl.extraction.tag_sets import PAGE_TAGS

# Lazy-loading attributes that hold the real image while `src` holds a placeholder.
_LAZY_SOURCES = ("data-src", "data-original", "data-lazy-src", "data-url")
_PLACEHOLDER = re.compile(r"^data:|placeholder|dummy|blank|spacer|fallback|transparent|lazy",
                          re.IGNORECASE)
# A figure in a slider or a list of other stories is a teaser, not the article's (matched at
# the start of a class token, as metadata's chrome markers are).
_TEASER_MARKER = re.compile(
    r"(?:^|\s)(?:slick|swiper|carousel|slider|related|teaser|promo|recommend|popular|trending|"
    r"sidebar|widget|more-)",
    re.IGNORECASE,
)
# A link around the image to the image itself (a larger copy) is no teaser's link.
_IMAGE_LINK = re.compile(r"\.(?:jpe?g|png|gif|webp|avif)(?:$|[?#])", re.IGNORECASE)
# A page with more figures than this in its article region is a gallery or a list of
# teasers: the first ones are kept.
_MAX_FIGURES = 20
_MIN_PIXELS = 100


def add_article_figures(
    document: Document,
    blocks: Sequence[HtmlElement | str],
    nodes: Sequence[int],
    base_url: str | None,
) -> list[HtmlElement | str]:
    """`blocks` (at walk indices `nodes`) with the region's figures at their places.

    A kept block inside a figure (its caption) gives way to the rewritten figure.
    """
    if not blocks:
        return list(blocks)
    first, _ = _region(document, nodes)
    # Figures after the last kept block are the next stories' teasers more often than the
    # article's closing photo.
    last = _subtree_end(document, max(nodes))
    # A figure inside a kept element is written with it.
    whole = [
        (node, _subtree_end(document, node))
        for node, block in zip(nodes, blocks, strict=True)
        if not isinstance(block, str)
    ]
    figures = [
        figure
        for figure in _find_figures(document, first, last)
        if not any(start < figure[0] < end for start, end in whole)
        and not is_teaser(figure[2], document.node_elements[first])
    ]
    if not figures:
        return list(blocks)
    merged: list[tuple[int, HtmlElement | str]] = []
    inside: list[tuple[int, int]] = []  # the rewritten figures' walk ranges
    for node, end, figure in figures:
        rewritten = rewrite_figure(figure, base_url)
        if rewritten is not None:
            merged.append((node, rewritten))
            inside.append((node, end))
    for node, block in zip(nodes, blocks, strict=True):
        if not any(start <= node < end for start, end in inside):
            merged.append((node, block))
    # Stable: a figure sorts before the blocks walked after it, and blocks keep their order.
    merged.sort(key=lambda pair: pair[0])
    return [block for _, block in merged]


def _region(document: Document, nodes: Sequence[int]) -> tuple[int, int]:
    """The walk indices [first, last) whose figures belong to the article."""
    parents = document.node_parents
    ancestors: list[int] = []
    node = nodes[0]
    while node >= 0:
        ancestors.append(node)
        node = parents[node]
    # The nearest common ancestor: the highest of the first block's ancestors any block meets.
    height_of = {node: height for height, node in enumerate(ancestors)}
    highest = 0
    for node in nodes[1:]:
        while node >= 0 and node not in height_of:
            node = parents[node]
        if node >= 0:
            highest = max(highest, height_of[node])
    common = ancestors[highest]
    if document.node_elements[common].tag in PAGE_TAGS:
        # A region that is the whole page: its figures are taken only between the kept blocks.
        return min(nodes), max(nodes) + 1
    return common, _subtree_end(document, common)


def _subtree_end(document: Document, node: int) -> int:
    """The walk index after the node's last descendant (the walk is in document order)."""
    parents = document.node_parents
    end = node + 1
    while end < len(parents) and parents[end] >= node:
        end += 1
    return end


def _find_figures(
    document: Document, first: int, last: int
) -> list[tuple[int, int, HtmlElement]]:
    """(walk index, end of its subtree, element) of each outermost figure in [first, last)."""
    elements = document.node_elements
    found: list[tuple[int, int, HtmlElement]] = []
    node = first
    while node < last and len(found) < _MAX_FIGURES:
        if elements[node].tag == "figure":
            end = _subtree_end(document, node)
            found.append((node, end, elements[node]))
            node = end  # a figure inside this one is part of it
        else:
            node += 1
    return found


def is_teaser(figure: HtmlElement, region: HtmlElement) -> bool:
    """Whether the figure links to another page, or sits in a slider or a list of stories."""
    for link in figure.iter("a"):
        href = link.get("href")
        if href and not _IMAGE_LINK.search(href):
            return True
    node = figure.getparent()
    while node is not None and node is not region:
        if node.tag == "a" or node.tag == "aside":
            return True
        if _TEASER_MARKER.search(f"{node.get('class') or ''} {node.get('id') or ''}"):
            return True
        node = node.getparent()
    return False


def rewrite_figure(figure: HtmlElement, base_url: str | None) -> HtmlElement | None:
    """`<figure><img src alt><figcaption>` of the figure's first usable image; None without one."""
    for img in figure.iter("img"):
        if _is_icon(img):
            continue
        source = sanitise_url(_image_source(img), base_url=base_url, image=True)
        if source is None:
            continue
        made = figure.makeelement("figure", {})
        image = made.makeelement("img", {"src": source})
        alt = clean_text(img.get("alt") or "", in_pre=False).strip()
        if alt:
            image.set("alt", alt)
        made.append(image)
        caption = _caption_text(figure)
        if caption:
            figcaption = made.makeelement("figcaption", {})
            figcaption.text = caption
            made.append(figcaption)
        return made
    return None


def _is_icon(img: HtmlElement) -> bool:
    """An image declared smaller than `_MIN_PIXELS` on a side: an avatar, icon or logo."""
    for name in ("width", "height"):
        value = (img.get(name) or "").strip()
        if value.isdigit() and int(value) < _MIN_PIXELS:
            return True
    return False


def _image_source(img: HtmlElement) -> str | None:
    """The image's real source: `src` unless it is a data: placeholder, else a lazy source."""
    src = img.get("src")
    if src and not _PLACEHOLDER.search(src.strip()):
        return src
    for name in _LAZY_SOURCES:
        value = img.get(name)
        if value and not value.strip().lower().startswith("data:"):
            return value
    return src if src and not src.strip().lower().startswith("data:") else None


def _caption_text(figure: HtmlElement) -> str:
    caption = figure.find(".//figcaption")
    return clean_text(caption.text_content(), in_pre=False).strip() if caption is not None else ""
