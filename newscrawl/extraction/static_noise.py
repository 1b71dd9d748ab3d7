"""StaDyNoT stage 1: learn text that repeats across a site's neighbour pages, then drop it."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

import lxml.html

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import SKIPPED_TAGS, Document, parse_document, parse_tree
from newscrawl.extraction.template import SiteTemplate

# The compiled keying loops (see compiled_loops): the keys of `_python_keyed_nodes`, faster.
_keys = compiled_loops.static_keys
_compiled_node_keys = None if _keys is None else _keys.node_keys
_compiled_page_keys = None if _keys is None else _keys.page_keys
_compiled_supports = None if _keys is None else _keys.node_supports
_compiled_owned = None if _keys is None else _keys.owned_pieces
# Whether node keys come from the compiled loop rather than `_python_keyed_nodes`.
COMPILED_KEYS: bool = _compiled_node_keys is not None

# The text-bearing elements in order of their first own piece, each one's key hash, and per
# text piece the position of the element whose own text it is.
KeyedNodes = tuple[list[lxml.html.HtmlElement], list[int], list[int]]

_DIGITS = re.compile(r"\d+")
_URL_ATTRIBUTES = frozenset({"href", "src", "action", "data-src", "srcset"})
# The same names as ASCII bytes, for the compiled loop.
_URL_NAMES = tuple(sorted(name.encode("ascii") for name in _URL_ATTRIBUTES))
_EPSILON = 1e-9


def learn_static_noise(
    pages: Sequence[str | bytes | Document], config: ExtractionConfig | None = None
) -> SiteTemplate:
    """Count, over neighbour pages, the pages on which each node key occurs."""
    config = config or ExtractionConfig()
    counts: Counter[int] = Counter()
    for page in pages:
        counts.update(set(_page_keys(page, config)))
    return SiteTemplate(page_count=len(pages), counts=dict(counts))


def _page_keys(page: str | bytes | Document, config: ExtractionConfig) -> list[int]:
    """The node keys of one page, in any order."""
    if isinstance(page, Document):
        return _keyed_nodes(page, config)[1]
    if _compiled_page_keys is not None:
        # Learning needs only the keys: key the parsed tree without building a Document.
        keys = _compiled_page_keys(
            parse_tree(page),
            SKIPPED_TAGS,
            config.normalise_attributes,
            _URL_NAMES,
            lambda element: _element_prefix(element, config),
        )
        if keys is not None:
            return keys
    return _keyed_nodes(parse_document(page), config)[1]


def remove_static_noise(
    document: Document,
    template: SiteTemplate,
    config: ExtractionConfig,
    *,
    learned_from_page: bool = False,
) -> None:
    """Record each node's support and drop the own text of nodes that are static noise.

    `learned_from_page`: the template counted this very page. Its own keys are discounted
    first, so the page is judged against its neighbours only (exactly the template learned
    without it): otherwise its article text would be "repeated" on a page of a small group.
    """
    page_count = template.page_count - 1 if learned_from_page else template.page_count
    document.static_page_count = page_count
    if page_count < config.static_min_pages:
        return
    # Only a template that can remove something makes this a neighbour-mode extraction.
    document.static_applied = True
    threshold = config.static_support - _EPSILON
    counts = template.counts
    static_support = document.static_support
    removed = document.removed_pieces
    elements, keys, owners = _keyed_nodes(document, config)
    if learned_from_page:
        supports = supports_without_page(keys, counts, page_count)
    else:
        find_supports = node_supports if _compiled_supports is None else _compiled_supports
        supports = find_supports(keys, counts, page_count)
    static_support.update(zip(elements, supports, strict=True))
    if config.static_remove_subtree:
        piece_range = document.piece_range
        for element, support in zip(elements, supports, strict=True):
            if support >= threshold:
                removed.update(range(*piece_range[element]))
    else:
        find_owned = owned_pieces if _compiled_owned is None else _compiled_owned
        removed.update(find_owned(owners, supports, threshold))


def node_supports(keys: list[int], counts: dict[int, int], page_count: int) -> list[float]:
    """Each key's support: the share of the template's pages that hold it.

    `SiteTemplate.support`, inlined: this runs for every text-bearing node of the page. The
    reference for `_static_keys.node_supports`.
    """
    get = counts.get
    return [get(key, 0) / page_count for key in keys] if page_count else [0.0] * len(keys)


def supports_without_page(keys: list[int], counts: dict[int, int], page_count: int) -> list[float]:
    """Each key's support among the template's other pages (`page_count` of them).

    The template counted each distinct key of this page once: one count less is the count
    of the template learned without it.
    """
    if page_count <= 0:
        return [0.0] * len(keys)
    get = counts.get
    return [max(get(key, 0) - 1, 0) / page_count for key in keys]


def owned_pieces(owners: list[int], supports: list[float], threshold: float) -> list[int]:
    """The pieces whose owner's support reaches the threshold: the reference for the C loop."""
    return [index for index, owner in enumerate(owners) if supports[owner] >= threshold]


def _keyed_nodes(document: Document, config: ExtractionConfig) -> KeyedNodes:
    """(elements, hashed keys, piece owners) of the text-bearing nodes, compiled if built."""
    if _compiled_node_keys is None:
        return _python_keyed_nodes(document, config)
    return _compiled_node_keys(
        document.pieces,
        config.normalise_attributes,
        _URL_NAMES,
        lambda element: _element_prefix(element, config),
    )


def _python_keyed_nodes(document: Document, config: ExtractionConfig) -> KeyedNodes:
    """The keying loop in Python: the reference for `_static_keys.node_keys`, and its fallback."""
    pieces = document.pieces
    # Elements in the order of their first own piece, each with all its own pieces.
    positions: dict[lxml.html.HtmlElement, int] = {}
    own_pieces: list[list[int]] = []
    owners = []
    for index, piece in enumerate(pieces):
        position = positions.get(piece.element)
        if position is None:
            position = positions[piece.element] = len(own_pieces)
            own_pieces.append([])
        own_pieces[position].append(index)
        owners.append(position)
    normalise = config.normalise_attributes
    digits = _DIGITS.sub
    # Tag and attribute sets repeat within a page; render (and normalise) each distinct one once.
    prefixes: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}
    keys = []
    for element, indices in zip(positions, own_pieces, strict=True):
        signature = (element.tag, tuple(element.items()))
        prefix = prefixes.get(signature)
        if prefix is None:
            prefix = prefixes[signature] = _render_prefix(*signature, config)
        if len(indices) == 1:
            text = " ".join(pieces[indices[0]].text.split())
        else:
            text = " ".join(" ".join([pieces[i].text for i in indices]).split())
        # The \x1f separators keep digit runs from spanning parts, so normalising the prefix
        # and the text apart equals normalising the whole key.
        keys.append(hash_key(prefix + (digits("0", text) if normalise else text)))
    return list(positions), keys, owners


def _element_prefix(element: lxml.html.HtmlElement, config: ExtractionConfig) -> str:
    """The key's tag and attributes part, for elements the compiled loops cannot render."""
    return _render_prefix(element.tag, tuple(element.items()), config)


def _render_prefix(
    tag: str, attributes: tuple[tuple[str, str], ...], config: ExtractionConfig
) -> str:
    """The key's tag and attributes part, normalised as `build_node_key` does."""
    prefix = f"{tag}\x1f{render_attributes(attributes, config)}\x1f"
    return _DIGITS.sub("0", prefix) if config.normalise_attributes else prefix


def build_node_key(element: lxml.html.HtmlElement, own_text: str, config: ExtractionConfig) -> str:
    """Key a node as tag + attributes + own direct text, normalised so neighbours match."""
    attributes = render_attributes(tuple(element.attrib.items()), config)
    key = f"{element.tag}\x1f{attributes}\x1f{' '.join(own_text.split())}"
    # Digit runs are dates, counters, ids and archive timestamps: they vary between pages.
    return _DIGITS.sub("0", key) if config.normalise_attributes else key


def render_attributes(attributes: tuple[tuple[str, str], ...], config: ExtractionConfig) -> str:
    """Attributes in a stable order, with volatile values normalised when configured."""
    if not attributes:
        return ""
    ordered = sorted(attributes) if len(attributes) > 1 else attributes
    if not config.normalise_attributes:
        return " ".join([f"{name}={value}" for name, value in ordered])
    return " ".join([f"{name}={_normalise_value(name, value)}" for name, value in ordered])


def hash_key(key: str) -> int:
    """Stable 64-bit hash of a node key (Python's `hash` is salted per process)."""
    return int.from_bytes(
        hashlib.blake2b(key.encode("utf-8", "replace"), digest_size=8).digest(), "little"
    )


def _normalise_value(name: str, value: str) -> str:
    """Collapse the parts of an attribute value that change from page to page."""
    if name in _URL_ATTRIBUTES:
        # Cache-busters and tracking parameters live in the query string and fragment.
        value = value.split("?", 1)[0].split("#", 1)[0]
    return value.strip().lower()
