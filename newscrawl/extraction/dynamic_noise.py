"""StaDyNoT stage 2: link blocks found as least common ancestors of anchors, then filtered."""

from __future__ import annotations

from itertools import chain, compress
from operator import attrgetter

import lxml.html
import numpy as np

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.block_features import piece_char_rows
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.container_fill import named_body
from newscrawl.extraction.document import Document, TextPiece
from newscrawl.extraction.tag_sets import PAGE_AND_HEAD_TAGS, PAGE_TAGS

# The compiled anchor and LCA search (see compiled_loops): the Python twins' results, faster.
_walk = compiled_loops.node_walk
_compiled_lca_nodes = None if _walk is None else _walk.lca_nodes
_compiled_judge = None if _walk is None else _walk.judge_candidates
# Whether the candidate search and judging use the compiled loops rather than the Python ones.
COMPILED_LCA: bool = _compiled_lca_nodes is not None

_FIRST_PIECE = attrgetter("first_piece")
_LAST_PIECE = attrgetter("last_piece")


def remove_dynamic_noise(document: Document, config: ExtractionConfig) -> None:
    """Mark link-heavy LCA blocks as noise and drop their text."""
    document.dynamic_applied = True
    found = _find_candidates_with_depth(document)
    if config.dynamic_bottom_up:
        # Deepest first, so a wrapper is judged only on what its noise blocks leave behind.
        found.sort(key=lambda pair: -pair[1])
    piece_range = document.piece_range
    judged = [element for element, _ in found if element.tag != "p"]
    ranges = list(map(piece_range.__getitem__, judged))  # looked up once: the test reads them
    if config.dynamic_prose_chars:
        judged, ranges = _without_prose(document, judged, ranges, config)
    body = _named_body_range(document, config) if config.dynamic_bottom_up else None
    if body is None:
        flags = _judge(document, ranges, config)
        document.dynamic_noise.extend(
            element for element, noisy in zip(judged, flags, strict=True) if noisy
        )
    else:
        document.dynamic_noise.extend(_judge_around_body(document, judged, ranges, body, config))
    if not config.dynamic_bottom_up:
        for element in document.dynamic_noise:
            start, end = piece_range[element]
            document.removed_pieces.update(range(start, end))


def _judge(
    document: Document, ranges: list[tuple[int, int]], config: ExtractionConfig
) -> list[bool]:
    """Which candidate piece ranges are noise, by the compiled loop when there is one."""
    judge = _judge_python if _compiled_judge is None else _compiled_judge
    return judge(
        document.pieces,
        ranges,
        document.removed_pieces,
        config.dynamic_bottom_up,
        config.dynamic_alpha,
        config.dynamic_beta,
    )


def _named_body_range(document: Document, config: ExtractionConfig) -> tuple[int, int] | None:
    """The piece range of the element the page names its body; None when the page names none
    (or several), or names the whole page."""
    if not config.dynamic_named_body:
        return None
    node = named_body(document)
    if node < 0 or document.node_elements[node].tag in PAGE_TAGS:
        return None
    start, end = document.node_starts[node], document.node_ends[node]
    return (start, end) if start < end else None


def _judge_around_body(
    document: Document,
    candidates: list[lxml.html.HtmlElement],
    ranges: list[tuple[int, int]],
    body: tuple[int, int],
    config: ExtractionConfig,
) -> list[lxml.html.HtmlElement]:
    """The noise candidates, the page's named body never among them nor inside one when what
    its link blocks leave of it reads as prose.

    The page's markup says which element holds the post: a short post, a link roundup or a
    body whose lines carry their sources' links can hold more than `dynamic_beta` of link text,
    and the paper would drop it whole as a link block, with every wrapper around it. Here the
    link blocks inside the body are judged first, as usual. When at most `dynamic_prose_links`
    of the text they leave is link text, that text is set aside: the body (and any candidate
    spanning just its text) is not judged, and the candidates around it are judged on their own
    text. A noisy wrapper of the body is noise through its parts outside the body, never through
    the body's text. A body that is a list of links is judged as any other candidate.
    """
    start, end = body
    removed = document.removed_pieces
    inner = [start <= low and high <= end and (low, high) != body for low, high in ranges]
    inner_ranges = list(compress(ranges, inner))
    noise = list(compress(compress(candidates, inner), _judge(document, inner_ranges, config)))
    outer = [not flag for flag in inner]
    outer_candidates = list(compress(candidates, outer))
    outer_ranges = list(compress(ranges, outer))
    # The body's text left after its link blocks.
    aside = set(range(start, end)).difference(removed)
    chars = piece_char_rows(document)
    left = sorted(aside)
    text = float(chars[0, left].sum())
    if not text or float(chars[1, left].sum()) > config.dynamic_prose_links * text:
        flags = _judge(document, outer_ranges, config)
        noise.extend(compress(outer_candidates, flags))
        return noise
    # Out of every other judgement, then back.
    removed.update(aside)
    kept_out = [not (start <= low and high <= end) for low, high in outer_ranges]
    outer_candidates = list(compress(outer_candidates, kept_out))
    outer_ranges = list(compress(outer_ranges, kept_out))
    flags = _judge(document, outer_ranges, config)
    removed.difference_update(aside)
    for element, (low, high), noisy in zip(outer_candidates, outer_ranges, flags, strict=True):
        if not noisy:
            continue
        if low <= start and end <= high:
            noise.extend(_parts_outside(document, element, start, end))
        else:
            noise.append(element)
    return noise


def _parts_outside(
    document: Document, wrapper: lxml.html.HtmlElement, start: int, end: int
) -> list[lxml.html.HtmlElement]:
    """The elements with text that make up `wrapper` outside the piece range `start:end`.

    At each level from the wrapper down to the innermost element holding the whole range, the
    children beside the one that holds it.
    """
    piece_range = document.piece_range
    parts: list[lxml.html.HtmlElement] = []
    holder: lxml.html.HtmlElement | None = wrapper
    while holder is not None:
        inside = None
        for child in holder.iterchildren():
            span = piece_range.get(child)
            if span is None or span[0] >= span[1]:
                continue
            if span[0] <= start and end <= span[1]:
                inside = child
            elif span[1] <= start or span[0] >= end:
                parts.append(child)
        holder = inside
    return parts


def _without_prose(
    document: Document,
    candidates: list[lxml.html.HtmlElement],
    ranges: list[tuple[int, int]],
    config: ExtractionConfig,
) -> tuple[list[lxml.html.HtmlElement], list[tuple[int, int]]]:
    """The candidates holding no prose paragraph, with their piece ranges: prose is no link noise.

    The paper judges a whole LCA block on its link share, so a body whose paragraphs carry
    inline links (a blog post citing its sources), or the wrapper of a body and its sidebar,
    goes as noise with every paragraph in it. A block with a paragraph's worth of text outside
    links, and few links of its own, is prose; the link lists inside such a candidate are
    still candidates of their own.
    """
    segments = document.segments
    if not candidates or not segments:
        return candidates, ranges
    chars = piece_char_rows(document)
    sums = np.zeros((2, chars.shape[1] + 1))
    np.cumsum(chars, axis=1, out=sums[:, 1:])
    count = len(segments)
    # `map` with an attrgetter reads the attributes in C, a generator would not.
    firsts = np.fromiter(map(_FIRST_PIECE, segments), dtype=np.intp, count=count)
    lasts = np.fromiter(map(_LAST_PIECE, segments), dtype=np.intp, count=count)
    text, links = sums[:, lasts] - sums[:, firsts]
    prose = (text - links >= config.dynamic_prose_chars) & (
        links <= config.dynamic_prose_links * text
    )
    starts = firsts[prose]  # ascending: segments own consecutive pieces in order
    if not len(starts):
        return candidates, ranges
    bounds = np.fromiter(chain.from_iterable(ranges), dtype=np.intp, count=2 * len(ranges))
    spans = bounds.reshape(-1, 2)
    # The first prose block starting at or after a candidate's start lies inside it when it
    # starts before the candidate's end (one vectorised search for every candidate); past the
    # last prose block, none does (`clip` reads the last, which starts before the candidate).
    at = np.searchsorted(starts, spans[:, 0])
    inside = (at < len(starts)) & (starts.take(at, mode="clip") < spans[:, 1])
    outside = (~inside).tolist()
    return list(compress(candidates, outside)), list(compress(ranges, outside))


def _judge_python(
    pieces: list[TextPiece],
    ranges: list[tuple[int, int]],
    removed: set[int],
    bottom_up: bool,
    alpha: float,
    beta: float,
) -> list[bool]:
    """Which candidate piece ranges are noise, in order: the reference for `judge_candidates`.

    Bottom-up, removed pieces do not count and a noise range's pieces join `removed` at once.
    """
    flags: list[bool] = []
    for start, end in ranges:
        link_chars = text_chars = 0
        for index in range(start, end):
            if bottom_up and index in removed:
                continue
            piece = pieces[index]
            size = len(piece.text.strip())
            text_chars += size
            if piece.in_link:
                link_chars += size
        if text_chars == 0:
            # Bottom-up, a block whose every piece was already found to be noise is noise.
            flags.append(bottom_up and start < end)
            continue
        noisy = text_chars - link_chars < alpha or link_chars / text_chars > beta
        flags.append(noisy)
        if noisy and bottom_up:
            removed.update(range(start, end))
    return flags


def find_candidates(document: Document) -> list[lxml.html.HtmlElement]:
    """Candidates: for each `<a href>`, the deeper of its LCAs with the previous and next anchor."""
    return [element for element, _ in _find_candidates_with_depth(document)]


def _find_candidates_with_depth(
    document: Document,
) -> list[tuple[lxml.html.HtmlElement, int]]:
    """`find_candidates`, each with its depth (its number of ancestors), in document order."""
    if _compiled_lca_nodes is None:
        return _find_candidates_python(document)
    elements = document.node_elements
    body = document.body
    # The body is the root or a child of it: found after a few nodes (the head's inside is
    # not walked). Only a hand-made tree can hide it inside a skipped element.
    try:
        first = 0 if body is document.tree else elements.index(body)
    except ValueError:
        return _find_candidates_python(document)
    piece_range = document.piece_range
    candidates: list[tuple[lxml.html.HtmlElement, int]] = []
    for node, depth in _compiled_lca_nodes(elements, document.node_parents, first):
        best = elements[node]
        if best in piece_range and best.tag not in PAGE_AND_HEAD_TAGS:
            candidates.append((best, depth))
    return candidates


def _find_candidates_python(
    document: Document,
) -> list[tuple[lxml.html.HtmlElement, int]]:
    """`_find_candidates_with_depth` in Python: the reference for `_node_walk.lca_nodes`."""
    anchors = [a for a in document.body.iter("a") if a.get("href") is not None]
    if len(anchors) < 2:
        return []  # an anchor's LCAs are with its neighbours: a lone anchor has none
    elements = document.node_elements
    parents = document.node_parents
    # Integer walk indices instead of lxml ancestor lists: climbing an int array is far cheaper
    # than creating a proxy for every ancestor of every anchor.
    index_of = dict(zip(elements, range(len(elements)), strict=True))
    find = index_of.get
    nodes = [find(anchor, -1) for anchor in anchors]
    if -1 in nodes:  # anchors inside skipped containers: their nearest walked ancestor
        nodes = [
            _walk_index(anchor, index_of) if node < 0 else node
            for anchor, node in zip(anchors, nodes, strict=True)
        ]
    # In walk (pre-)order, the ancestors of a later node that come no later than an earlier
    # node are exactly the two nodes' common ancestors: the first one met climbing is the LCA.
    shared: list[int] = []
    add_shared = shared.append
    for earlier, later in zip(nodes, nodes[1:], strict=False):
        while later > earlier:
            later = parents[later]
        add_shared(later)
    # Both LCAs of an anchor are its ancestors, so the deeper one has the larger walk index.
    best_nodes = [shared[0], *map(max, shared, shared[1:]), shared[-1]]
    piece_range = document.piece_range
    candidates: dict[lxml.html.HtmlElement, int] = {}
    # Each node once, in first-seen order (a dict keeps it); the cheap dict test goes first.
    for node in dict.fromkeys(best_nodes):
        best = elements[node]
        if best in piece_range and best.tag not in PAGE_AND_HEAD_TAGS:
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
