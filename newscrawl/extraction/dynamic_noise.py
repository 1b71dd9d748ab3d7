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
    paths = [_ancestor_path(a) for a in anchors]
    # Each adjacent pair's shared depth serves both of its anchors: compute it once.
    shared = [_common_prefix(paths[i], paths[i + 1]) for i in range(len(paths) - 1)]
    candidates: dict[lxml.html.HtmlElement, int] = {}
    piece_range = document.piece_range
    last = len(shared) - 1
    for i, path in enumerate(paths):
        before = shared[i - 1] if i else -1
        after = shared[i] if i <= last else -1
        common = before if before >= after else after
        if common > 0:
            best = path[common - 1]
            if best.tag not in _NEVER_CANDIDATES and best in piece_range:
                candidates[best] = common - 1
    return list(candidates.items())


def _ancestor_path(element: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """Root-to-element list of nodes."""
    path = [element]
    path.extend(element.iterancestors())
    path.reverse()
    return path


def _common_prefix(a: list[lxml.html.HtmlElement], b: list[lxml.html.HtmlElement]) -> int:
    """Length of the shared root path of two nodes (the depth of their LCA plus one)."""
    # Neighbouring anchors mostly share all but their last few levels: look for the LCA from
    # the deeper end, testing membership in C instead of comparing level by level from the root.
    on_a = set(a)
    for depth in range(min(len(a), len(b)) - 1, -1, -1):
        if b[depth] in on_a:
            return depth + 1
    return 0
