"""Type stub for the compiled walks over libxml2's nodes (_node_walk.pyx and its .pxi parts)."""

from collections.abc import Callable, Iterator, Mapping

import lxml.html

from newscrawl.extraction import document
from newscrawl.extraction.document import Document

BUILT_FOR_LXML: str

# _text_walk.pxi and _ancestor_flags.pxi

class TextPiece:
    """`document.TextPiece` compiled: made without a Python call, untraced by the collector."""

    text: str
    element: lxml.html.HtmlElement
    in_link: bool
    segment: int
    def __init__(
        self, text: str, element: lxml.html.HtmlElement, in_link: bool, segment: int
    ) -> None: ...

class Segment:
    """`document.Segment` compiled: made and collected as `TextPiece` is."""

    index: int
    block: lxml.html.HtmlElement
    first_piece: int
    last_piece: int
    node: int
    text: str
    def __init__(
        self,
        index: int,
        block: lxml.html.HtmlElement,
        first_piece: int,
        last_piece: int,
        node: int,
        text: str = "",
    ) -> None: ...

class PieceRanges(Mapping[lxml.html.HtmlElement, tuple[int, int]]):
    """`Document.piece_range` from the compiled walk: the Python walk's dict, as a view."""

    def __init__(
        self, index_of: dict[lxml.html.HtmlElement, int], starts: list[int], ends: list[int]
    ) -> None: ...
    def __getitem__(self, element: lxml.html.HtmlElement) -> tuple[int, int]: ...
    def __iter__(self) -> Iterator[lxml.html.HtmlElement]: ...
    def __len__(self) -> int: ...

def index_text(
    document: Document, skipped_tags: frozenset[str], block_tags: frozenset[str]
) -> bool:
    """Fill `document` as `document._index_text` does; False (document untouched) if it cannot."""

def joined_text(texts: list[str], first: int, last: int) -> str:
    """`" ".join(" ".join(texts[first:last]).split())`: a segment's text from its pieces."""

def ancestor_flags(
    elements: list[lxml.html.HtmlElement],
    parents: list[int],
    nodes: list[int],
    tag_flags: dict[object, int],
    marker_flags: Callable[[str], int],
    memo: FlagMemo | None = None,
) -> list[int]:
    """`block_features._ancestor_flags` over a Document's `node_elements` and `node_parents`."""

class FlagMemo:
    """What `ancestor_flags` learnt of one page (`count` walked elements), between its calls."""

    def __init__(self, count: int) -> None: ...

def named_body_candidates(
    elements: list[lxml.html.HtmlElement], parents: list[int], nodes: list[int], depth: int
) -> list[int] | None:
    """`container_fill._body_candidates` less the elements that cannot carry a body name."""

# _metadata_scan.pxi

def scan_elements(
    root: lxml.html.HtmlElement,
    indexed_tags: tuple[str, ...],
    byline_tags: tuple[str, ...],
    byline_markers: tuple[str, ...],
) -> (
    tuple[
        dict[str, list[lxml.html.HtmlElement]],
        list[lxml.html.HtmlElement],
        list[lxml.html.HtmlElement],
        list[lxml.html.HtmlElement],
    ]
    | None
):
    """(tags, author-marked, date-marked, byline candidates) of the page; None if it cannot."""

def body_text_sample(
    root: lxml.html.HtmlElement, no_text_tags: frozenset[str], limit: int
) -> str | None:
    """`language._read_body_text(root)`, from one C walk; None if it cannot."""

def meta_contents(metas: list[lxml.html.HtmlElement]) -> dict[str, list[str]]:
    """`metadata.read_meta_tags` over the page's `<meta>` elements."""

# _dynamic_lca.pxi

def lca_nodes(
    elements: list[lxml.html.HtmlElement], parents: list[int], first: int
) -> list[tuple[int, int]]:
    """The unique deeper LCAs of consecutive anchors below walk node `first`, with depths."""

def judge_candidates(
    pieces: list[document.TextPiece],
    ranges: list[tuple[int, int]],
    removed: set[int],
    bottom_up: bool,
    alpha: float,
    beta: float,
) -> list[bool]:
    """`dynamic_noise._judge_python`: which candidate piece ranges are noise, in order."""
