"""StaDyNoT stage 2: link blocks found as least common ancestors of anchors, then filtered."""

from __future__ import annotations

import lxml.html

from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document

_NEVER_CANDIDATES = frozenset({"html", "body", "head"})


def remove_dynamic_noise(document: Document, config: ExtractionConfig) -> None:
    """Mark link-heavy LCA blocks as noise and drop their text."""
    document.dynamic_applied = True
    found = _find_candidates_with_depth(document)
    if config.dynamic_bottom_up:
        # Deepest first, so a wrapper is judged only on what its noise blocks leave behind.
        found.sort(key=lambda pair: -pair[1])
    candidates = [element for element, _ in found]
    removed = document.removed_pieces
    for element in candidates:
        if element.tag == "p":
            continue
        start, end = document.piece_range[element]
        link_chars = text_chars = 0
        for index in range(start, end):
            if config.dynamic_bottom_up and index in removed:
                continue
            piece = document.pieces[index]
            size = len(piece.text.strip())
            text_chars += size
            if piece.in_link:
                link_chars += size
        if text_chars == 0:
            if config.dynamic_bottom_up and start < end:
                # Everything inside was already found to be noise: so is the block.
                document.dynamic_noise.append(element)
            continue
        non_link = text_chars - link_chars
        if non_link < config.dynamic_alpha or link_chars / text_chars > config.dynamic_beta:
            document.dynamic_noise.append(element)
            if config.dynamic_bottom_up:
                removed.update(range(start, end))
    if not config.dynamic_bottom_up:
        for element in document.dynamic_noise:
            start, end = document.piece_range[element]
            removed.update(range(start, end))


def find_candidates(document: Document) -> list[lxml.html.HtmlElement]:
    """Candidates: for each `<a href>`, the deeper of its LCAs with the previous and next anchor."""
    return [element for element, _ in _find_candidates_with_depth(document)]


def _find_candidates_with_depth(
    document: Document,
) -> list[tuple[lxml.html.HtmlElement, int]]:
    """`find_candidates`, each with its depth (its number of ancestors), in document order."""
    anchors = [a for a in document.body.iter("a") if a.get("href") is not None]
    if len(anchors) < 2:
        return []  # an anchor's LCAs are with its neighbours: a lone anchor has none
    elements = document.node_elements
    parents = document.node_parents
    # Integer walk indices instead of lxml ancestor lists: climbing an int array is far cheaper
    # than creating a proxy for every ancestor of every anchor.
    index_of = dict(zip(elements, range(len(elements)), strict=True))
    nodes = [_walk_index(anchor, index_of) for anchor in anchors]
    # In walk (pre-)order, the ancestors of a later node that come no later than an earlier
    # node are exactly the two nodes' common ancestors: the first one met climbing is the LCA.
    shared: list[int] = []
    for earlier, later in zip(nodes, nodes[1:], strict=False):
        while later > earlier:
            later = parents[later]
        shared.append(later)
    # Both LCAs of an anchor are its ancestors, so the deeper one has the larger walk index.
    best_nodes = [shared[0], *map(max, shared, shared[1:]), shared[-1]]
    piece_range = document.piece_range
    candidates: dict[lxml.html.HtmlElement, int] = {}
    seen: set[int] = set()
    for node in best_nodes:
        if node in seen:
            continue
        seen.add(node)
        best = elements[node]
        if best.tag not in _NEVER_CANDIDATES and best in piece_range:
            depth = 0
            parent = parents[node]
            while parent >= 0:
                depth += 1
                parent = parents[parent]
            candidates[best] = depth
    return list(candidates.items())


def _walk_index(element: lxml.html.HtmlElement, index_of: dict[lxml.html.HtmlElement, int]) -> int:
    """The walk index of an element, else of its nearest walked ancestor.

    The walk skips the inside of `<noscript>`, `<svg>` and the like; an anchor in there has the
    same LCA with any walked anchor as that skipped container has.
    """
    index = index_of.get(element)
    if index is not None:
        return index
    for ancestor in element.iterancestors():
        index = index_of.get(ancestor)
        if index is not None:
            return index
    return 0  # unreachable: the root is always walked
