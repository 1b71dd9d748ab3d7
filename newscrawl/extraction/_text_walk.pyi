"""Type stub for the compiled per-node loops (_text_walk.pyx)."""

from collections.abc import Callable

import lxml.html

from newscrawl.extraction.document import Document, Segment, TextPiece

BUILT_FOR_LXML: str

def index_text(
    document: Document,
    skipped_tags: frozenset[str],
    block_tags: frozenset[str],
    piece_type: type[TextPiece],
    segment_type: type[Segment],
) -> bool:
    """Fill `document` as `document._index_text` does; False (document untouched) if it cannot."""

def ancestor_flags(
    elements: list[lxml.html.HtmlElement],
    parents: list[int],
    nodes: list[int],
    tag_flags: dict[object, int],
    marker_flags: Callable[[str], int],
) -> list[int]:
    """`block_features._ancestor_flags` over a Document's `node_elements` and `node_parents`."""
