"""Combine the stages' annotations into the final article."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

import lxml.html
import numpy as np

from newscrawl.extraction.article import Article
from newscrawl.extraction.block_features import FEATURE_NAMES, compute_block_features
from newscrawl.extraction.block_scorer import load_block_model
from newscrawl.extraction.clean_html import new_element, render_clean_html
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, normalise_space
from newscrawl.extraction.metadata import extract_metadata
from newscrawl.extraction.relevance import page_title, select_title_keywords

# lxml refuses these in element text; the page may still contain them.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def build_article(document: Document, *, title: str | None, config: ExtractionConfig) -> Article:
    """Pick the article blocks from the stages' signals and assemble text, HTML and metadata."""
    metadata = extract_metadata(document.tree, document.url)
    headline = normalise_space(title) if title else (metadata.title or page_title(document) or "")
    if config.use_block_scorer:
        kept = select_blocks_by_score(document, title or headline, config)
        paragraphs = [document.segments[i].text for i in kept]
    else:
        kept = select_blocks_by_rules(document, config)
        paragraphs = [_remaining_text(document, i) for i in kept]
    kept, paragraphs = (
        [i for i, p in zip(kept, paragraphs, strict=True) if p],
        [p for p in paragraphs if p],
    )
    elements = _html_elements(
        document, kept, paragraphs_by_index=dict(zip(kept, paragraphs, strict=True))
    )
    return Article(
        title=headline,
        text="\n\n".join(paragraphs),
        html=_render_html(elements, document.url),
        published=metadata.published,
        authors=list(metadata.authors),
        language=metadata.language,
        canonical_url=metadata.canonical_url,
        image_url=metadata.image_url,
        image_caption=metadata.image_caption,
        method="neighbours" if document.static_applied else "single",
        config_version=config.version,
    )


def select_blocks_by_rules(document: Document, config: ExtractionConfig) -> list[int]:
    """The seed papers' decision: text left by the noise stages, within Han-Tokuda's group."""
    removed = set(document.removed_pieces)
    if not config.keep_form_children:
        for element in document.tree.iter("form", "caption"):
            start, end = document.piece_range.get(element, (0, 0))
            removed.update(range(start, end))
    kept = [
        i
        for i, segment in enumerate(document.segments)
        if any(j not in removed for j in range(segment.first_piece, segment.last_piece))
    ]
    if document.relevance_applied and document.relevant_segments:
        wanted = document.relevant_segments | set(document.title_segments[:1])
        kept = [i for i in kept if i in wanted]
    return kept


def select_blocks_by_score(
    document: Document, title: str | None, config: ExtractionConfig
) -> list[int]:
    """Score every block with the trained model and keep the likely article blocks."""
    if not document.segments:
        return []
    keywords = set(select_title_keywords(title, config)) if title else set()
    features = compute_block_features(document, keywords, config)
    model = load_block_model()
    # Blocks without a word add nothing to the text: only the others are scored.
    scored = np.flatnonzero(features[:, FEATURE_NAMES.index("log_words")] > 0)
    probabilities = np.zeros(len(features))
    rows = features[scored]
    probabilities[scored] = _heuristic_scores(rows) if model is None else model.predict_proba(rows)
    keep = probabilities >= config.block_threshold
    if config.drop_static_blocks:
        keep &= features[:, FEATURE_NAMES.index("static_fraction")] < config.static_block_fraction
    kept: list[int] = np.flatnonzero(keep).tolist()
    if config.drop_duplicate_blocks:
        seen: set[str] = set()
        unique = []
        for i in kept:
            text = document.segments[i].text
            if text not in seen:
                seen.add(text)
                unique.append(i)
        kept = unique
    return kept


def _heuristic_scores(features: np.ndarray) -> np.ndarray:
    """Stand-in for an untrained model: long, link-poor, non-noise blocks."""
    log_words, link_fraction, static_fraction, dynamic_fraction = (
        features[:, 0],
        features[:, 2],
        features[:, 3],
        features[:, 6],
    )
    score = (log_words > np.log1p(8)) & (link_fraction < 0.5) & (static_fraction < 0.5)
    return (score & (dynamic_fraction < 0.5)).astype(np.float64)


def _remaining_text(document: Document, index: int) -> str:
    """A block's text without the pieces a stage removed."""
    segment = document.segments[index]
    return normalise_space(
        " ".join(
            document.pieces[j].text
            for j in range(segment.first_piece, segment.last_piece)
            if j not in document.removed_pieces
        )
    )


def _html_elements(
    document: Document, kept: list[int], *, paragraphs_by_index: dict[int, str]
) -> list[lxml.html.HtmlElement]:
    """Kept blocks as elements; a block that also holds rejected text becomes a plain `<p>`."""
    kept_set = set(kept)
    fully_kept: dict[lxml.html.HtmlElement, bool] = {}
    for segment in document.segments:
        block = segment.block
        inside = segment.index in kept_set
        fully_kept[block] = fully_kept.get(block, True) and inside
    # Segments own consecutive pieces in order, so the pieces of a subtree belong to one run of
    # segments: it is all kept when the kept ones in it are as many as the run is long.
    kept_sorted = sorted(kept_set)
    pieces = document.pieces
    elements: list[lxml.html.HtmlElement] = []
    emitted: set[lxml.html.HtmlElement] = set()
    for index in kept:
        block = document.segments[index].block
        if block in emitted:
            continue
        start, end = document.piece_range.get(block, (0, 0))
        nested_ok = True
        if start < end:
            first, last = pieces[start].segment, pieces[end - 1].segment
            kept_in_run = bisect_right(kept_sorted, last) - bisect_left(kept_sorted, first)
            nested_ok = kept_in_run == last - first + 1
        if block.tag not in ("body", "html", "br") and fully_kept[block] and nested_ok:
            if not any(ancestor in emitted for ancestor in block.iterancestors()):
                elements.append(block)
            emitted.add(block)
        else:
            paragraph = new_element("p")
            paragraph.text = _CONTROL_CHARACTERS.sub("", paragraphs_by_index[index])
            elements.append(paragraph)
    return elements


def _render_html(elements: list[lxml.html.HtmlElement], base_url: str | None) -> str:
    """Safe HTML of the chosen elements."""
    return render_clean_html(elements, base_url=base_url) if elements else ""
