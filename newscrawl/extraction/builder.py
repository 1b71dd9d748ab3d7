"""Combine the stages' annotations into the final article."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Set as AbstractSet

import lxml.html
import numpy as np

from newscrawl.extraction.article import Article
from newscrawl.extraction.article_body import complete_from_structured_body
from newscrawl.extraction.block_features import FEATURE_NAMES, compute_block_features
from newscrawl.extraction.block_scorer import load_block_model
from newscrawl.extraction.clean_html import render_clean_html
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.container_fill import (
    add_doubted_body,
    add_named_body,
    add_prose_neighbours,
    fill_article_containers,
    read_block_columns,
)
from newscrawl.extraction.descriptions import first_paragraph
from newscrawl.extraction.document import Document, normalise_space
from newscrawl.extraction.figures import add_article_figures
from newscrawl.extraction.metadata import extract_metadata
from newscrawl.extraction.prompt_noise import find_noise_segments
from newscrawl.extraction.relevance import page_title, title_keyword_set
from newscrawl.extraction.stated_lede import add_stated_lede
from newscrawl.extraction.tag_sets import HEADING_TAGS
from newscrawl.extraction.template_fill import add_unique_container_prose
from newscrawl.extraction.word_tokens import count_text_words

# lxml refuses these in element text; the page may still contain them.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def build_article(document: Document, *, title: str | None, config: ExtractionConfig) -> Article:
    """Pick the article blocks from the stages' signals and assemble text, HTML and metadata."""
    # A feed's title is the article's; the page's own headline is kept beside it where it differs.
    metadata = extract_metadata(
        document.tree, document.url, htmldate_fallback=config.htmldate_fallback
    )
    headline = normalise_space(title) if title else (metadata.title or page_title(document) or "")
    page_headline = (
        metadata.title
        if title and metadata.title and metadata.title.casefold() != headline.casefold()
        else None
    )
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
    noise = find_noise_segments(document, kept) if config.drop_prompt_noise else set()
    if noise:
        kept, paragraphs = (
            [i for i in kept if i not in noise],
            [p for i, p in zip(kept, paragraphs, strict=True) if i not in noise],
        )
        # The furniture held the prose the scorer was sure of (a comment thread under a story
        # the model doubted): choose again among the blocks outside it.
        if (
            config.use_block_scorer
            and config.best_block_share
            and _prose_words(document, kept) < config.best_block_words
        ):
            kept = [
                i
                for i in select_blocks_by_score(document, title or headline, config, excluded=noise)
                if i not in noise
            ]
            paragraphs = [document.segments[i].text for i in kept]
    if config.lede_min_words:
        kept, paragraphs = add_stated_lede(
            document,
            kept,
            paragraphs,
            metadata.description,
            min_words=config.lede_min_words,
            min_share=config.lede_word_share,
            excluded=noise,
        )
    from_body = False
    if config.use_structured_body:
        kept, paragraphs, from_body = complete_from_structured_body(
            document, kept, paragraphs, article_body=metadata.article_body, excluded=noise
        )
    if from_body:
        elements: list[lxml.html.HtmlElement | str] = list(paragraphs)
    else:
        elements, nodes = _html_elements(
            document, kept, paragraphs_by_index=dict(zip(kept, paragraphs, strict=True))
        )
        if config.keep_figures:
            elements = add_article_figures(document, elements, nodes, document.url)
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
        description=metadata.description or first_paragraph(paragraphs, headline),
        site_name=metadata.site_name,
        tags=list(metadata.tags),
        modified=metadata.modified,
        page_headline=page_headline,
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


def _prose_words(document: Document, kept: list[int]) -> int:
    """Words in the kept blocks that are neither the headline nor a heading."""
    titles = set(document.title_segments)
    segments = document.segments
    return sum(
        count_text_words(segments[i].text)
        for i in kept
        if i not in titles and segments[i].block.tag not in HEADING_TAGS
    )


def select_blocks_by_score(
    document: Document,
    title: str | None,
    config: ExtractionConfig,
    excluded: AbstractSet[int] = frozenset(),
) -> list[int]:
    """Score every block with the trained model and keep the likely article blocks.

    `excluded` blocks (recognised furniture) are never kept nor a best guess.
    """
    if not document.segments:
        return []
    keywords = title_keyword_set(document, title, config) if title else frozenset()
    features = compute_block_features(document, keywords, config)
    model = load_block_model() if config.block_model is None else config.block_model
    # Blocks without a word add nothing to the text: only the others are scored.
    scored = np.flatnonzero(features[:, FEATURE_NAMES.index("log_words")] > 0)
    probabilities = np.zeros(len(features))
    rows = features[scored]
    probabilities[scored] = _heuristic_scores(rows) if model is None else model.predict_proba(rows)
    prose = _prose_mask(document, features, config.fill_link_fraction)
    if excluded:
        outside = list(excluded)
        probabilities[outside] = 0.0
        prose[outside] = False
    likely_prose = prose & (probabilities >= config.block_threshold)
    if config.best_block_share and words_of(features, likely_prose) < config.best_block_words:
        # The best guess will pick among these: only text that reads as words, never a run of
        # symbols (a binary body decoded as text). Checked only then: it reads every character.
        prose &= _lettered_mask(document)
    words = np.expm1(features[:, FEATURE_NAMES.index("log_words")])
    keep = pick_likely_blocks(
        probabilities,
        config.block_threshold,
        config.best_block_share,
        prose,
        words=words,
        min_words=config.best_block_words,
    )
    if config.drop_static_blocks:
        keep &= features[:, FEATURE_NAMES.index("static_fraction")] < config.static_block_fraction
    kept: list[int] = np.flatnonzero(keep).tolist()
    # What the container rules read of the feature table, read once for all of them.
    columns = read_block_columns(features, config.fill_link_fraction)
    if config.fill_containers:
        kept = add_doubted_body(
            document,
            features,
            probabilities,
            kept,
            min_paragraph_words=config.fill_paragraph_words,
            min_probability=config.fill_min_probability,
            max_link_fraction=config.fill_link_fraction,
            columns=columns,
        )
        kept = fill_article_containers(
            document,
            features,
            probabilities,
            kept,
            min_paragraph_words=config.fill_paragraph_words,
            min_twin_words=config.fill_twin_words,
            min_probability=config.fill_min_probability,
            min_mean=config.fill_min_mean,
            max_link_fraction=config.fill_link_fraction,
            max_gap=config.fill_max_gap,
            columns=columns,
        )
    if config.fill_neighbour_words:
        kept = add_prose_neighbours(
            document,
            features,
            probabilities,
            kept,
            min_paragraph_words=config.fill_paragraph_words,
            min_words=config.fill_neighbour_words,
            min_probability=config.fill_neighbour_probability,
            min_anchor_probability=config.block_threshold,
            max_link_fraction=config.fill_link_fraction,
            # A quote or list is a group, judged as the twins' shapes are.
            min_unit_mean=config.fill_min_mean,
            columns=columns,
        )
    if config.named_body_words:
        kept = add_named_body(
            document,
            features,
            kept,
            min_words=config.named_body_words,
            max_link_fraction=config.fill_link_fraction,
        )
    if config.template_fill_words and document.static_applied:
        kept = add_unique_container_prose(
            document,
            features,
            probabilities,
            kept,
            min_paragraph_words=config.fill_paragraph_words,
            min_anchor_probability=config.block_threshold,
            min_words=config.template_fill_words,
            min_probability=config.template_fill_probability,
            max_link_fraction=config.fill_link_fraction,
            columns=columns,
        )
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


def pick_likely_blocks(
    probabilities: np.ndarray,
    threshold: float,
    best_share: float,
    prose: np.ndarray,
    *,
    words: np.ndarray | None = None,
    min_words: float = 1.0,
) -> np.ndarray:
    """Which blocks are likely article: those at the threshold, plus the page's best guess.

    A short post whose one paragraph the model doubts (a blog's two lines under a photo) would
    give nothing but its headline, and a memo whose only sure line is "Please advise." little
    more. When the prose blocks (`prose`, a mask: no headline, few links) at the threshold hold
    fewer than `min_words` words (`words` per block; without it, when there is none), the
    other prose blocks within `best_share` of the likeliest of them are kept too.
    """
    keep = probabilities >= threshold
    if not best_share:
        return keep
    kept_prose = keep & prose
    # Without word counts, any sure prose block is enough.
    short = (
        not kept_prose.any() if words is None else float(words[kept_prose].sum()) < min_words
    )
    if short:
        body = np.where(prose & ~keep, probabilities, 0.0)
        if not len(body):
            return keep
        # The likeliest body is the block with the most expected article words: a one-word
        # label the model half believes is no measure of a paragraph it doubts.
        best = body.max() if words is None else body[int(np.argmax(body * words))]
        if best > 0:
            keep |= body >= best_share * best
    return keep


def words_of(features: np.ndarray, mask: np.ndarray) -> float:
    """How many words the masked blocks hold."""
    return float(np.expm1(features[mask, FEATURE_NAMES.index("log_words")]).sum())


def _prose_mask(document: Document, features: np.ndarray, max_link_fraction: float) -> np.ndarray:
    """The blocks that may be a body paragraph: no headline, no heading, few links."""
    headings = np.fromiter(
        (segment.block.tag in HEADING_TAGS for segment in document.segments),
        dtype=bool,
        count=len(document.segments),
    )
    return (
        ~headings
        & (features[:, FEATURE_NAMES.index("is_title")] <= 0)
        & (features[:, FEATURE_NAMES.index("link_fraction")] < max_link_fraction)
    )


def _lettered_mask(document: Document) -> np.ndarray:
    """The blocks whose characters, spaces aside, are at least half letters (any script)."""
    lettered = np.zeros(len(document.segments), dtype=bool)
    for i, segment in enumerate(document.segments):
        text = segment.text
        letters = sum(map(str.isalpha, text))
        lettered[i] = 2 * letters >= len(text) - text.count(" ")
    return lettered


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
    # Pieces join as the walk joins them (`document.joined_text`): spaces are in their text.
    return normalise_space(
        "".join(
            document.pieces[j].text
            for j in range(segment.first_piece, segment.last_piece)
            if j not in document.removed_pieces
        )
    )


def _html_elements(
    document: Document, kept: list[int], *, paragraphs_by_index: dict[int, str]
) -> tuple[list[lxml.html.HtmlElement | str], list[int]]:
    """Kept blocks as elements; a block that also holds rejected text becomes a paragraph's text.

    No element is inside another: a block's kept descendants go when the block comes. Also
    returns each one's walk index (a paragraph's: its block's).
    """
    # Walk indices (`Segment.node`) stand in for elements: int sets and a climb over the parent
    # array instead of hashing elements and creating a proxy for every ancestor.
    segments = document.segments
    pieces = document.pieces
    parents = document.node_parents
    starts = document.node_starts
    ends = document.node_ends
    kept_set = set(kept)
    kept_sorted = sorted(kept_set)
    elements: list[lxml.html.HtmlElement | str] = []
    element_nodes: list[int] = []  # walk index of each element, -1 for a made-up paragraph
    positions: list[int] = []  # walk index of each element or made-up paragraph's block
    last_node = -1  # the latest-walked block in `elements`
    emitted: set[int] = set()
    for index in kept:
        segment = segments[index]
        node = segment.node
        if node in emitted:
            continue
        block = segment.block
        start, end = starts[node], ends[node]
        if start < end:
            # Segments own consecutive pieces in order, so the pieces of a subtree belong to one
            # run of segments: it is all kept when the kept ones in it are as many as the run is
            # long. That covers every segment of the block itself too (they lie in the run).
            first, last = pieces[start].segment, pieces[end - 1].segment
            whole = bisect_right(kept_sorted, last) - bisect_left(kept_sorted, first)
            whole_kept = whole == last - first + 1
        else:  # a block without text of its own in its subtree: only its own segments count
            whole_kept = all(s.index in kept_set for s in segments if s.node == node)
        if whole_kept and block.tag not in ("body", "html", "br"):
            ancestor = parents[node]
            while ancestor >= 0 and ancestor not in emitted:
                ancestor = parents[ancestor]
            if ancestor < 0:
                if node < last_node:
                    # Blocks already taken may lie inside this one (a <p> before its <div>'s
                    # tail text). Inside means walked later and starting before its end: taken
                    # blocks have text, so one after the subtree starts at its end or later.
                    for i in reversed(range(len(element_nodes))):
                        if element_nodes[i] > node and starts[element_nodes[i]] < end:
                            del elements[i], element_nodes[i], positions[i]
                elements.append(block)
                element_nodes.append(node)
                positions.append(node)
                last_node = max(last_node, node)
            emitted.add(node)
        else:
            # A paragraph's text: the writer writes it as a `<p>`, with no lxml element made.
            elements.append(_CONTROL_CHARACTERS.sub("", paragraphs_by_index[index]))
            element_nodes.append(-1)
            positions.append(node)
    return elements, positions


def _render_html(elements: list[lxml.html.HtmlElement | str], base_url: str | None) -> str:
    """Safe HTML of `_html_elements`' blocks (no element inside another)."""
    return render_clean_html(elements, base_url=base_url, outermost=True) if elements else ""
