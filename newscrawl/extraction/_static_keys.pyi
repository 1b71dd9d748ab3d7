"""Type stub for the compiled static-noise keying loops (_static_keys.pyx)."""

from collections.abc import Callable

import lxml.html

from newscrawl.extraction.document import TextPiece

BUILT_FOR_LXML: str

def node_keys(
    pieces: list[TextPiece],
    normalise: bool,
    url_names: tuple[bytes, ...],
    prefix_of: Callable[[lxml.html.HtmlElement], str],
) -> tuple[list[lxml.html.HtmlElement], list[int], list[int]]:
    """`static_noise._python_keyed_nodes`: (elements, key hashes, owner position per piece)."""

def page_keys(
    root: lxml.html.HtmlElement,
    skipped_tags: frozenset[str],
    normalise: bool,
    url_names: tuple[bytes, ...],
    prefix_of: Callable[[lxml.html.HtmlElement], str],
) -> list[int] | None:
    """The keys `node_keys` gives for `parse_document`'s pieces, straight from the tree."""

def blake2b64(data: bytes) -> int:
    """`static_noise.hash_key` of bytes: BLAKE2b with an 8-byte digest, read little-endian."""

def node_supports(keys: list[int], counts: dict[int, int], page_count: int) -> list[float]:
    """`static_noise.node_supports`: each key's count in the template over its page count."""

def owned_pieces(owners: list[int], supports: list[float], threshold: float) -> list[int]:
    """`static_noise.owned_pieces`: the pieces whose owner's support reaches the threshold."""
