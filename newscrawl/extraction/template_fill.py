"""With a site template applied, keep the page's own prose inside its article container.

A template removes the text the page shares with its neighbours (menus, footers, sidebars,
the site's standing blurbs). What stays inside the element holding the body paragraphs is
then mostly this page's article: a lede written in a `<div>` before the first `<p>`, a
paragraph the block scorer doubts because it shares no word with the title, a closing line
after the last kept paragraph. Without a template the same doubted block may be a sidebar's
blurb, so single-page extraction never widens this way; with one, a block whose text occurs
on no neighbour at all (static support 0) and that reads as prose is kept.
"""

from __future__ import annotations

import numpy as np

from newscrawl.extraction.block_features import FEATURE_NAMES, ancestor_flags
from newscrawl.extraction.container_fill import (
    BlockColumns,
    is_inside,
    is_unmarked_below,
    lowest_common_node,
    read_block_columns,
)
from newscrawl.extraction.document import Document
from newscrawl.extraction.tag_sets import HEADING_TAGS, PAGE_TAGS

_SUPPORT = FEATURE_NAMES.index("static_mean_support")


def add_unique_container_prose(
    document: Document,
    features: np.ndarray,
    probabilities: np.ndarray,
    kept: list[int],
    *,
    min_paragraph_words: int,
    min_anchor_probability: float,
    min_words: int,
    min_probability: float,
    max_link_fraction: float,
    columns: BlockColumns | None = None,
) -> list[int]:
    """`kept` with the unique prose blocks inside the smallest element holding its body.

    The body is the kept paragraphs the scorer was sure of (at `min_anchor_probability`, at
    least `min_paragraph_words` words); two are needed to show where it lies. A block is
    added when it lies in their lowest common element (never the page's `<body>`), has
    `min_words` words and `min_probability`, few links, is no headline or heading, lies in no
    figure and in nothing marked as boilerplate below the container, and none of its text
    occurs on a neighbour. Nothing changes when no template was applied.
    """
    if not document.static_applied or not kept:
        return kept
    if columns is None:
        columns = read_block_columns(features, max_link_fraction)
    words, marks = columns.words, columns.marks
    segments = document.segments
    elements = document.node_elements
    unique = features[:, _SUPPORT] <= 0

    def prose(i: int) -> bool:
        return (
            bool(columns.clean[i])
            and not columns.is_title[i]
            and elements[segments[i].node].tag not in HEADING_TAGS
        )

    body = [
        i
        for i in kept
        if words[i] >= min_paragraph_words
        and probabilities[i] >= min_anchor_probability
        and prose(i)
    ]
    if len(body) < 2:
        return kept
    container = lowest_common_node(document, [segments[i].node for i in body])
    if container < 0 or elements[container].tag in PAGE_TAGS:
        return kept
    container_flags = ancestor_flags(document, [container])[0]
    kept_set = set(kept)
    added = [
        i
        for i in np.flatnonzero(
            (words >= min_words) & (probabilities >= min_probability) & unique
        ).tolist()
        if i not in kept_set
        and is_inside(document, segments[i].node, container)
        and prose(i)
        and is_unmarked_below(document, i, int(marks[i]), container, container_flags)
    ]
    if not added:
        return kept
    return sorted(kept_set | set(added))
