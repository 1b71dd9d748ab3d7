"""StaDyNoT stage 1: learn text that repeats across a site's neighbour pages, then drop it."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator, Sequence

import lxml.html

from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.template import SiteTemplate

_DIGITS = re.compile(r"\d+")
_URL_ATTRIBUTES = frozenset({"href", "src", "action", "data-src", "srcset"})
_EPSILON = 1e-9


def learn_static_noise(
    pages: Sequence[str | bytes | Document], config: ExtractionConfig | None = None
) -> SiteTemplate:
    """Count, over neighbour pages, the pages on which each node key occurs."""
    config = config or ExtractionConfig()
    counts: Counter[int] = Counter()
    for page in pages:
        document = page if isinstance(page, Document) else parse_document(page)
        counts.update({key for _, key in iter_node_keys(document, config)})
    return SiteTemplate(page_count=len(pages), counts=dict(counts))


def remove_static_noise(
    document: Document, template: SiteTemplate, config: ExtractionConfig
) -> None:
    """Record each node's support and drop the own text of nodes that are static noise."""
    document.static_page_count = template.page_count
    if template.page_count < config.static_min_pages:
        return
    # Only a template that can remove something makes this a neighbour-mode extraction.
    document.static_applied = True
    threshold = config.static_support - _EPSILON
    # `SiteTemplate.support`, inlined: this runs for every text-bearing node of the page.
    counts = template.counts
    page_count = template.page_count
    static_support = document.static_support
    removed = document.removed_pieces
    for element, key, indices in _iter_keyed_nodes(document, config):
        support = static_support[element] = counts.get(key, 0) / page_count if page_count else 0.0
        if support < threshold:
            continue
        if config.static_remove_subtree:
            start, end = document.piece_range[element]
            removed.update(range(start, end))
        else:
            removed.update(indices)


def iter_node_keys(
    document: Document, config: ExtractionConfig
) -> Iterator[tuple[lxml.html.HtmlElement, int]]:
    """Yield (element, hashed key) for every element that holds visible text of its own."""
    for element, key, _ in _iter_keyed_nodes(document, config):
        yield element, key


def _iter_keyed_nodes(
    document: Document, config: ExtractionConfig
) -> Iterator[tuple[lxml.html.HtmlElement, int, list[int]]]:
    """Yield (element, hashed key, indices of its own text pieces) for text-bearing nodes."""
    pieces = document.pieces
    own_pieces: dict[lxml.html.HtmlElement, list[int]] = {}
    for index, piece in enumerate(pieces):
        indices = own_pieces.get(piece.element)
        if indices is None:
            own_pieces[piece.element] = [index]
        else:
            indices.append(index)
    # Tag and attribute sets repeat a lot within a page; render (and normalise) each distinct
    # one once. The \x1f separators keep digit runs from spanning parts, so normalising the
    # prefix and the text apart equals normalising the whole key.
    prefixes: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}
    normalise = config.normalise_attributes
    digits = _DIGITS.sub
    for element, indices in own_pieces.items():
        signature = (element.tag, tuple(element.items()))
        prefix = prefixes.get(signature)
        if prefix is None:
            prefix = f"{signature[0]}\x1f{render_attributes(signature[1], config)}\x1f"
            prefixes[signature] = prefix = digits("0", prefix) if normalise else prefix
        if len(indices) == 1:
            text = " ".join(pieces[indices[0]].text.split())
        else:
            text = " ".join(" ".join([pieces[i].text for i in indices]).split())
        yield element, hash_key(prefix + (digits("0", text) if normalise else text)), indices


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
