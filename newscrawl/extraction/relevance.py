"""Han and Tokuda: find the headline in the page, then the paragraph group most relevant to it."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Set as AbstractSet
from itertools import accumulate

import numpy as np

from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, normalise_space
from newscrawl.extraction.tag_sets import PARAGRAPH_TAGS
from newscrawl.extraction.word_tokens import count_segment_words, count_words, split_words

_TITLE_SEPARATORS = re.compile(r"\s+[|\-\u2013\u2014:»«/]+\s+|\s*\|\s*")
# Articles, prepositions and conjunctions that the paper drops from the title keywords.
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "about",
        "as",
        "into",
        "onto",
        "over",
        "under",
        "after",
        "before",
        "between",
        "through",
        "during",
        "without",
        "within",
        "upon",
        "and",
        "or",
        "but",
        "nor",
        "so",
        "yet",
        "if",
        "than",
        "that",
    ]
)


def select_title_keywords(title: str, config: ExtractionConfig) -> list[str]:
    """Split the feed title into lower-case keywords, without stop words and possessive 's."""
    title = normalise_space(title)
    if config.longest_title_segment:
        parts = [part for part in _TITLE_SEPARATORS.split(title) if part.strip()]
        if parts:
            title = max(parts, key=len)
    keywords = []
    for word in title.split():
        word = word.lower().strip("\"'“”‘’.,;:!?()[]")
        for suffix in ("'s", "’s"):
            if word.endswith(suffix):
                word = word[: -len(suffix)]
        if word and word not in _STOP_WORDS:
            keywords.extend(split_words(word))
    return keywords


def title_keyword_set(document: Document, title: str, config: ExtractionConfig) -> frozenset[str]:
    """`select_title_keywords` of a title as a set, worked out once per page."""
    key = (title, config.longest_title_segment)
    keywords = document.title_keywords.get(key)
    if keywords is None:
        keywords = document.title_keywords[key] = frozenset(select_title_keywords(title, config))
    return keywords


def page_title(document: Document) -> str | None:
    """The page's own `<title>`, used when no feed title is known."""
    element = document.tree.find(".//title")
    if element is None:
        return None
    return normalise_space(element.text_content()) or None


def select_relevant_paragraphs(
    document: Document, title: str | None, config: ExtractionConfig
) -> None:
    """Mark the likely headline blocks and the paragraph group most relevant to the title."""
    document.relevance_applied = True
    title = title or page_title(document)
    if not title:
        return
    keywords = title_keyword_set(document, title, config)
    if not keywords:
        return
    # Whole blocks' counts are the block features' too: counted once (`count_segment_words`).
    counts = count_segment_words(document, keywords)
    titles, members = _relevant_blocks(document, counts, keywords, config)
    document.title_segments = titles
    document.relevant_segments = set(members)


def _relevant_blocks(
    document: Document, counts: np.ndarray, keywords: AbstractSet[str], config: ExtractionConfig
) -> tuple[list[int], list[int]]:
    """(headline blocks, best paragraph group) from the blocks' word and keyword counts."""
    removed = document.removed_pieces
    link_only: list[bool] = []
    pieces = document.pieces
    words, keys = counts.tolist()
    # Blocks that lost some pieces are counted again on what is left.
    partial: list[int] = []
    partial_texts: list[str] = []
    # Removed pieces before each piece index: a block's removed count is one subtraction.
    removed_before = [0, *accumulate(map(removed.__contains__, range(len(pieces))))]
    # Likewise for pieces outside links: whether a whole block has plain text is a subtraction.
    plain_before = [0, *accumulate(not piece.in_link for piece in pieces)]
    for i, segment in enumerate(document.segments):
        first, last = segment.first_piece, segment.last_piece
        gone = removed_before[last] - removed_before[first]
        if not gone:
            link_only.append(plain_before[last] == plain_before[first])
        elif gone == last - first:
            # Every piece was removed: no words, nothing plain.
            words[i] = keys[i] = 0
            link_only.append(True)
        else:
            kept = [pieces[index] for index in range(first, last) if index not in removed]
            partial.append(i)
            partial_texts.append(" ".join([piece.text for piece in kept]))
            link_only.append(all(piece.in_link or piece.text.isspace() for piece in kept))
    if partial:
        for i, word_number, key_number in zip(
            partial, *count_words(partial_texts, keywords).tolist(), strict=True
        ):
            words[i], keys[i] = word_number, key_number

    keyword_count = len(keywords)
    titles: list[int] = []
    for i, (word_number, key_number) in enumerate(zip(words, keys, strict=True)):
        if not word_number:
            continue
        if config.cap_key_number:
            key_number = min(key_number, keyword_count)
        if key_number * key_number / (word_number * keyword_count) > config.title_similarity:
            titles.append(i)

    count = len(document.segments)
    if titles:
        bounds = titles + [count]
        ranges = [(bounds[k] + 1, bounds[k + 1]) for k in range(len(titles))]
        reserve = (0, titles[0])
    else:
        ranges = [(0, count)]
        reserve = (0, 0)
    best = _best_group(document, ranges, words, keys, link_only)
    if best[0] <= config.paragraph_possibility and reserve[1] > reserve[0]:
        fallback = _best_group(document, [reserve], words, keys, link_only)
        if fallback[0] > best[0]:
            best = fallback
    return titles, best[1]


def _best_group(
    document: Document,
    ranges: list[tuple[int, int]],
    words: list[int],
    keys: list[int],
    link_only: list[bool],
) -> tuple[float, list[int]]:
    """The related-node group with the highest Possibility = WordSum * (KeySum + 1)."""
    best: tuple[float, list[int]] = (0.0, [])
    segments = document.segments
    # Walk indices stand for the elements: climbing the parent array creates no lxml proxies.
    elements = document.node_elements
    parents = document.node_parents
    for start, end in ranges:
        groups: dict[int, list[int]] = defaultdict(list)
        for i in range(start, end):
            if not words[i]:
                continue
            node = segments[i].node
            parent = parents[node]
            if elements[node].tag not in PARAGRAPH_TAGS and (
                parent < 0 or elements[parent].tag not in PARAGRAPH_TAGS
            ):
                continue
            # Siblings, or nodes whose parents are siblings, share a grandparent.
            anchor = parents[parent] if parent >= 0 else -1
            groups[anchor if anchor >= 0 else node].append(i)
        for members in groups.values():
            if all(link_only[i] for i in members):
                continue
            possibility = sum(words[i] for i in members) * (sum(keys[i] for i in members) + 1)
            if possibility > best[0]:
                best = (float(possibility), members)
    return best
