"""Type stub for the compiled dynamic-noise loops (_dynamic_lca.pyx)."""

import lxml.html

from newscrawl.extraction.document import TextPiece

BUILT_FOR_LXML: str

def lca_nodes(
    elements: list[lxml.html.HtmlElement], parents: list[int], first: int
) -> list[tuple[int, int]]:
    """The unique deeper LCAs of consecutive anchors below walk node `first`, with depths."""

def judge_candidates(
    pieces: list[TextPiece],
    ranges: list[tuple[int, int]],
    removed: set[int],
    bottom_up: bool,
    alpha: float,
    beta: float,
) -> list[bool]:
    """`dynamic_noise._judge_python`: which candidate piece ranges are noise, in order."""
