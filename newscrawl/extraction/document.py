"""A page's Document: its lxml tree (`page_tree`) plus the per-node state every stage annotates."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import lxml.etree
import lxml.html

# The tree's parsing lives in `page_tree`; its names stay importable from here.
from newscrawl.extraction import compiled_loops
from newscrawl.extraction.page_tree import MAX_ELEMENTS as MAX_ELEMENTS
from newscrawl.extraction.page_tree import STATE_ASSIGNMENT as STATE_ASSIGNMENT
from newscrawl.extraction.page_tree import parse_bounded_tree as parse_bounded_tree
from newscrawl.extraction.page_tree import parse_tree as parse_tree
from newscrawl.extraction.page_tree import trim_markup as trim_markup
from newscrawl.extraction.tag_sets import BLOCK_TAGS as BLOCK_TAGS
from newscrawl.extraction.tag_sets import SKIPPED_TAGS as SKIPPED_TAGS

# The compiled walk (see compiled_loops): the same Document as `_index_text`, faster.
_compiled_walk = compiled_loops.node_walk
# Whether parse_document uses the compiled walk rather than `_index_text`.
COMPILED_WALK: bool = _compiled_walk is not None

_WHITESPACE = re.compile(r"\s+")


@dataclass(eq=False, slots=True)
class TextPiece:
    """One run of visible text: an element's `.text` or one of its children's `.tail`.

    Followed by blank text within its block, it ends with a space (see `joined_text`).
    """

    text: str
    element: lxml.html.HtmlElement  # the element whose own (direct) text this is
    in_link: bool
    segment: int


@dataclass(eq=False, slots=True)
class Segment:
    """A text block: the inline text between two block boundaries, in document order."""

    index: int
    block: lxml.html.HtmlElement  # nearest block-level element holding the text
    first_piece: int
    last_piece: int  # exclusive
    node: int  # walk index of `block` (see `Document.node_elements`)
    text: str = ""


if _compiled_walk is not None:
    # The compiled walk's own types, with the same fields: it makes them without a Python call,
    # and the garbage collector does not trace them (they never lead back to themselves).
    TextPiece = _compiled_walk.TextPiece  # type: ignore[misc,assignment]
    Segment = _compiled_walk.Segment  # type: ignore[misc,assignment]


@dataclass(eq=False)
class Document:
    """A parsed page with the annotations the extraction stages leave on it."""

    tree: lxml.html.HtmlElement
    url: str | None
    pieces: list[TextPiece]
    segments: list[Segment]
    # Index range of pieces inside each text-bearing element's subtree, for fast subtree text
    # sums: a dict from the Python walk, a `_node_walk.PieceRanges` view from the compiled one.
    piece_range: Mapping[lxml.html.HtmlElement, tuple[int, int]]
    # Per walked element, in walk order: the element, its parent's walk index (-1 for the root)
    # and the piece range of its subtree. Lists indexed by position: no dicts keyed by element.
    node_elements: list[lxml.html.HtmlElement] = field(default_factory=list)
    node_parents: list[int] = field(default_factory=list)
    node_starts: list[int] = field(default_factory=list)
    node_ends: list[int] = field(default_factory=list)
    # Annotations written by the stages; empty until the stage ran.
    static_support: dict[lxml.html.HtmlElement, float] = field(default_factory=dict)
    static_applied: bool = False
    static_page_count: int = 0
    removed_pieces: set[int] = field(default_factory=set)
    dynamic_noise: list[lxml.html.HtmlElement] = field(default_factory=list)
    dynamic_applied: bool = False
    # Word and keyword counts of every segment's text per keyword set (`count_segment_words`).
    word_counts: dict[frozenset[str], Any] = field(default_factory=dict)
    # What `block_features.ancestor_flags` learnt of the page, for its later calls.
    ancestor_memo: Any = None
    # Title keywords per (title, longest-segment setting): relevance and the block features
    # both ask for them (`relevance.title_keyword_set`).
    title_keywords: dict[tuple[str, bool], frozenset[str]] = field(default_factory=dict)
    # Per piece: its stripped length, and again when in a link (`block_features.piece_char_rows`);
    # the dynamic-noise stage and the block features both read it, so it is computed once.
    piece_chars: Any = None
    # The walk index of the element the page names its body (`container_fill.named_body`), -1
    # for none, -2 until asked: dynamic noise and the container rules both ask for it.
    named_body_node: int = -2
    relevant_segments: set[int] = field(default_factory=set)
    title_segments: list[int] = field(default_factory=list)
    relevance_applied: bool = False
    # The page had more than MAX_ELEMENTS elements and was cut before parsing.
    truncated: bool = False

    @property
    def body(self) -> lxml.html.HtmlElement:
        """The `<body>` element, or the root when the page has none."""
        body = self.tree.find("body")
        return body if body is not None else self.tree


def normalise_space(text: str) -> str:
    """Collapse whitespace runs to single spaces and strip the ends."""
    return _WHITESPACE.sub(" ", text).strip()


def parse_document(
    html: str | bytes, *, url: str | None = None, encoding: str | None = None
) -> Document:
    """Parse a page and index its visible text into pieces and blocks (`encoding`: parse_tree)."""
    tree, truncated = parse_bounded_tree(html, encoding=encoding)
    document = Document(
        tree=tree, url=url, pieces=[], segments=[], piece_range={}, truncated=truncated
    )
    if _compiled_walk is None or not _compiled_walk.index_text(document, SKIPPED_TAGS, BLOCK_TAGS):
        _index_text(document)
    return document


def _index_text(document: Document) -> None:
    """Walk the tree once, recording text pieces, block segments and subtree ranges."""
    # The reference for the compiled twin in `_text_walk.pxi`, and the walk when it is not built.
    # One hot loop over every node: helpers and globals are bound locally, and counts are
    # kept in locals rather than asked of the lists.
    skipped_tags = SKIPPED_TAGS
    block_tags = BLOCK_TAGS
    pieces = document.pieces
    segments = document.segments
    piece_range: dict[lxml.html.HtmlElement, tuple[int, int]] = {}
    document.piece_range = piece_range
    add_piece = pieces.append
    add_segment = segments.append
    node_elements = document.node_elements
    node_parents = document.node_parents
    node_starts = document.node_starts
    node_ends = document.node_ends
    add_element = node_elements.append
    add_parent = node_parents.append
    add_start = node_starts.append
    add_end = node_ends.append
    # Open blocks as (element, walk index).
    block_stack: list[tuple[lxml.html.HtmlElement, int]] = []
    # Walk indices of the open elements; `parent` is the top (-1 above the root).
    node_stack: list[int] = []
    push_node = node_stack.append
    pop_node = node_stack.pop
    parent = -1
    node_count = 0
    piece_count = 0
    # Open `<a href>` elements; a link's end event compares against the top.
    link_stack: list[lxml.html.HtmlElement] = []
    current: Segment | None = None
    # Whether blank text (skipped: it makes no piece) lies between the open segment's last
    # piece and the next one: the source's only space there.
    gap = False
    walker = lxml.etree.iterwalk(document.tree, events=("start", "end"))
    for event, element in walker:
        if event == "start":
            tag = element.tag
            add_element(element)
            add_parent(parent)
            add_start(piece_count)
            add_end(0)
            push_node(parent)
            parent = node_count
            node_count += 1
            if tag in skipped_tags:
                # Nothing inside is visible (head, scripts, svg...): do not even walk it.
                walker.skip_subtree()
                continue
            if tag == "a" and element.get("href") is not None:
                link_stack.append(element)
            if tag in block_tags:
                if current is not None:
                    current.last_piece = piece_count
                    add_segment(current)
                    current = None
                    gap = False
                block_stack.append((element, parent))
            text = element.text
            if text and not text.isspace():
                if current is None:
                    block, block_node = block_stack[-1]
                    current = Segment(len(segments), block, piece_count, 0, block_node)
                elif gap:
                    _keep_gap(pieces[-1])
                gap = False
                add_piece(TextPiece(text, element, bool(link_stack), current.index))
                piece_count += 1
            elif text and current is not None:
                gap = True
            continue
        tag = element.tag
        if tag in block_tags:
            if current is not None:
                current.last_piece = piece_count
                add_segment(current)
                current = None
                gap = False
            block_stack.pop()
        elif link_stack and link_stack[-1] is element:
            link_stack.pop()
        start = node_starts[parent]
        node_ends[parent] = piece_count
        if start != piece_count:
            # Only text-bearing subtrees are recorded; the stages ignore the others.
            piece_range[element] = (start, piece_count)
        parent = pop_node()
        if parent < 0:
            continue
        text = element.tail
        if text and not text.isspace():
            if current is None:
                block, block_node = block_stack[-1]
                current = Segment(len(segments), block, piece_count, 0, block_node)
            elif gap:
                _keep_gap(pieces[-1])
            gap = False
            add_piece(TextPiece(text, node_elements[parent], bool(link_stack), current.index))
            piece_count += 1
        elif text and current is not None:
            gap = True
    if current is not None:
        current.last_piece = piece_count
        add_segment(current)
    texts = [piece.text for piece in pieces]
    for segment in segments:
        segment.text = joined_text(texts, segment.first_piece, segment.last_piece)


def joined_text(texts: list[str], first: int, last: int) -> str:
    """A block's text from its pieces `texts[first:last]`, whitespace runs collapsed.

    Pieces join as the markup does: a space only where the source has whitespace (inside a
    piece, or blank text between two, which the walk leaves at the end of the first), so
    `(<a>AMZN</a>)` stays `(AMZN)` and inline elements never split CJK words.
    """
    # str.split() and the `\s+` pattern agree on what whitespace is; split is faster.
    if last - first == 1:
        return " ".join(texts[first].split())
    return " ".join("".join(texts[first:last]).split())


def _keep_gap(piece: TextPiece) -> None:
    """End a piece with a space, standing for the blank text the walk skipped after it."""
    if not piece.text[-1].isspace():
        piece.text += " "
