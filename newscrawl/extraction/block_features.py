"""Cheap per-block features that combine every stage's signal for the block scorer."""

from __future__ import annotations

import re

import lxml.html
import numpy as np

from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, segment_tokens

# Full-width forms are what Chinese and Japanese text punctuates with.
_PUNCTUATION = ".,;:!?、。，；：！？"
_UPPER_SAMPLE = 200
_SENTENCE_END = frozenset(".!?\"'”’)。！？」』）")  # segment texts are stripped: the last character
# Matched against lower-cased markers: re.IGNORECASE makes these alternations 3x slower.
_NEGATIVE_HINT = re.compile(
    r"comment|footer|foot|nav|menu|sidebar|side|share|social|related|promo|advert|\bads?\b|"
    r"banner|breadcrumb|login|subscribe|newsletter|widget|popular|recommend|tags?\b|masthead|"
    r"header|byline|caption|credit|toolbar|cookie|outbrain|taboola|sponsor|more"
)
_POSITIVE_HINT = re.compile(
    r"article|story|content|body|text|post|entry|main|blog|news|paragraph|copy"
)
# bytes.translate deletes every byte but A-Z: what is left counts an ASCII text's capitals.
_NOT_ASCII_UPPER = bytes(b for b in range(256) if not 65 <= b <= 90)
_BOILERPLATE_TAGS = frozenset({"nav", "footer", "header", "aside", "form", "menu", "select"})
_TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("tag_p", frozenset({"p"})),
    ("tag_li", frozenset({"li", "dd", "dt"})),
    ("tag_h1", frozenset({"h1"})),
    ("tag_h", frozenset({"h2", "h3", "h4", "h5", "h6"})),
    ("tag_td", frozenset({"td", "th", "tr"})),
    ("tag_div", frozenset({"div", "section", "article", "main", "center", "span", "font"})),
    ("tag_quote", frozenset({"blockquote", "pre", "figcaption", "caption"})),
    ("tag_br", frozenset({"br"})),
)
# Hint bits: 1 negative marker, 2 positive marker, 4 boilerplate tag, 8 list, 16 table.
_TAG_FLAGS: dict[str, int] = {
    **dict.fromkeys(_BOILERPLATE_TAGS, 4),
    "ul": 8,
    "ol": 8,
    "dl": 8,
    "table": 16,
}
_HINT_TUPLES: tuple[tuple[float, ...], ...] = tuple(
    tuple(float(bool(flags & bit)) for bit in (1, 2, 4, 8, 16)) for flags in range(32)
)
_TAG_ONE_HOT: dict[str, tuple[float, ...]] = {
    tag: tuple(float(tag in group) for _, group in _TAG_GROUPS)
    for _, group in _TAG_GROUPS
    for tag in group
}
_NO_TAG = (0.0,) * len(_TAG_GROUPS)

FEATURE_NAMES: tuple[str, ...] = (
    "log_words",
    "log_chars",
    "link_fraction",
    "static_fraction",
    "static_mean_support",
    "has_template",
    "dynamic_fraction",
    "ht_relevant",
    "is_title",
    "after_title",
    "title_distance",
    "position",
    "ends_sentence",
    "punctuation_per_word",
    "title_overlap",
    *(name for name, _ in _TAG_GROUPS),
    "parent_log_chars",
    "parent_link_fraction",
    "grand_log_chars",
    "grand_link_fraction",
    "great_log_chars",
    "great_link_fraction",
    "parent_long_blocks",
    "negative_hint",
    "positive_hint",
    "boilerplate_ancestor",
    "in_list",
    "in_table",
    "prev_log_words",
    "prev_link_fraction",
    "next_log_words",
    "next_link_fraction",
    "share_of_page",
    "word_length",
    "upper_fraction",
    "prev_same_block_parent",
    "next_same_block_parent",
    "dynamic_applied",
    "relevance_applied",
)


def compute_block_features(
    document: Document, title_keywords: set[str], config: ExtractionConfig
) -> np.ndarray:
    """One row of `FEATURE_NAMES` per segment of the document."""
    pieces = document.pieces
    segments = document.segments
    count = len(segments)
    if not count:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float64)
    piece_chars = np.fromiter(
        (len(p.text.strip()) for p in pieces), dtype=np.float64, count=len(pieces)
    )
    in_link = np.fromiter((p.in_link for p in pieces), dtype=bool, count=len(pieces))
    cum_chars = np.concatenate(([0.0], np.cumsum(piece_chars)))
    cum_links = np.concatenate(([0.0], np.cumsum(piece_chars * in_link)))
    firsts = np.fromiter((s.first_piece for s in segments), dtype=np.int64, count=count)
    lasts = np.fromiter((s.last_piece for s in segments), dtype=np.int64, count=count)
    chars = cum_chars[lasts] - cum_chars[firsts]
    safe_chars = np.maximum(chars, 1.0)
    link_fraction = (cum_links[lasts] - cum_links[firsts]) / safe_chars

    has_template = document.static_applied and document.static_page_count >= config.static_min_pages
    static_fraction = np.zeros(count)
    static_support = np.zeros(count)
    if has_template:
        support_of = document.static_support
        support = np.fromiter(
            (support_of.get(p.element, 0.0) for p in pieces), dtype=np.float64, count=len(pieces)
        )
        cum_support = np.concatenate(([0.0], np.cumsum(support * piece_chars)))
        is_static = support >= config.static_support - 1e-9
        cum_static = np.concatenate(([0.0], np.cumsum(piece_chars * is_static)))
        static_fraction = (cum_static[lasts] - cum_static[firsts]) / safe_chars
        static_support = (cum_support[lasts] - cum_support[firsts]) / safe_chars
    dynamic = np.zeros(len(pieces), dtype=bool)
    for element in document.dynamic_noise:
        start, end = document.piece_range[element]
        dynamic[start:end] = True
    cum_dynamic = np.concatenate(([0.0], np.cumsum(piece_chars * dynamic)))
    dynamic_fraction = (cum_dynamic[lasts] - cum_dynamic[firsts]) / safe_chars

    index = np.arange(count, dtype=np.float64)
    titles = document.title_segments
    relevant = np.zeros(count)
    relevant[list(document.relevant_segments)] = 1.0
    is_title = np.zeros(count)
    is_title[titles] = 1.0
    after_title = np.zeros(count)
    title_distance = np.zeros(count)
    if titles:
        after_title = (index > titles[0]).astype(np.float64)
        title_distance = np.clip((index - titles[0]) / 50.0, -1.0, 1.0)

    long_blocks: dict[lxml.html.HtmlElement, int] = {}
    hint_cache: dict[lxml.html.HtmlElement, int] = {}
    marker_cache: dict[str, int] = {}
    piece_range = document.piece_range
    word_counts: list[int] = []
    per_segment: list[list[float]] = []
    parents: list[lxml.html.HtmlElement | None] = []
    # Ancestor subtree ranges, three levels up; (0, 0) when there is no such ancestor.
    ancestor_ranges: list[tuple[int, int]] = []
    empty_row = [0.0] * (3 + len(_TAG_GROUPS) + 5 + 1)
    for segment in segments:
        text = segment.text
        tokens = segment_tokens(segment)
        word_count = len(tokens)
        word_counts.append(word_count)
        block = segment.block
        parent = block.getparent()
        parents.append(parent)
        if not word_count:
            # Never scored (no words to add); only its neighbours read its size and links.
            per_segment.append(empty_row)
            ancestor_ranges.extend(((0, 0), (0, 0), (0, 0)))
            continue
        if word_count >= 10 and parent is not None:
            long_blocks[parent] = long_blocks.get(parent, 0) + 1
        overlap = (
            sum(map(title_keywords.__contains__, tokens)) / word_count
            if title_keywords
            else 0.0
        )
        row = [
            1.0 if text[-1:] in _SENTENCE_END else 0.0,
            sum(map(text.count, _PUNCTUATION)) / word_count,
            overlap,
        ]
        row.extend(_TAG_ONE_HOT.get(block.tag, _NO_TAG))
        ancestor = parent
        for _ in range(3):
            span = piece_range.get(ancestor) if ancestor is not None else None
            if span is None:
                ancestor_ranges.append((0, 0))
            else:
                ancestor_ranges.append(span)
                ancestor = ancestor.getparent()
        row.extend(_ancestor_hints(block, hint_cache, marker_cache))
        # Capitals matter in short labels and headings; the start of a long block is enough.
        head = text[:_UPPER_SAMPLE]
        row.append(_count_upper(head) / len(head) if head else 0.0)
        per_segment.append(row)

    local = np.asarray(per_segment, dtype=np.float64)
    words = np.asarray(word_counts, dtype=np.float64)
    spans = np.asarray(ancestor_ranges, dtype=np.int64).reshape(count, 3, 2)
    sub_chars = cum_chars[spans[:, :, 1]] - cum_chars[spans[:, :, 0]]
    sub_links = cum_links[spans[:, :, 1]] - cum_links[spans[:, :, 0]]
    sub_log = np.log1p(sub_chars)
    sub_fraction = np.where(sub_chars > 0, sub_links / np.maximum(sub_chars, 1.0), 0.0)
    parent_long = np.log1p([long_blocks.get(p, 0) if p is not None else 0 for p in parents])
    hint_column = 3 + len(_TAG_GROUPS)
    log_words = np.log1p(words)
    prev_words = np.concatenate(([0.0], log_words[:-1]))
    next_words = np.concatenate((log_words[1:], [0.0]))
    prev_links = np.concatenate(([0.0], link_fraction[:-1]))
    next_links = np.concatenate((link_fraction[1:], [0.0]))
    same_prev = np.zeros(count)
    same_next = np.zeros(count)
    for i in range(1, count):
        if parents[i] is not None and parents[i] is parents[i - 1]:
            same_prev[i] = 1.0
            same_next[i - 1] = 1.0
    total_chars = float(cum_chars[-1]) or 1.0
    word_length = np.where(words > 0, chars / np.maximum(words, 1.0), 0.0)
    ones = np.ones(count)
    columns = [
        log_words,
        np.log1p(chars),
        link_fraction,
        static_fraction,
        static_support,
        ones * float(has_template),
        dynamic_fraction,
        relevant,
        is_title,
        after_title,
        title_distance,
        index / count,
        local[:, 0],
        local[:, 1],
        local[:, 2],
        *(local[:, 3 + k] for k in range(len(_TAG_GROUPS))),
        sub_log[:, 0],
        sub_fraction[:, 0],
        sub_log[:, 1],
        sub_fraction[:, 1],
        sub_log[:, 2],
        sub_fraction[:, 2],
        parent_long,
        *(local[:, hint_column + k] for k in range(5)),
        prev_words,
        prev_links,
        next_words,
        next_links,
        chars / total_chars,
        word_length,
        local[:, -1],
        same_prev,
        same_next,
        ones * float(document.dynamic_applied),
        ones * float(document.relevance_applied),
    ]
    return np.column_stack(columns)


def _ancestor_hints(
    element: lxml.html.HtmlElement,
    cache: dict[lxml.html.HtmlElement, int],
    markers: dict[str, int],
) -> tuple[float, ...]:
    """(negative class/id hint, positive hint, boilerplate tag, in list, in table) of ancestors."""
    return _HINT_TUPLES[_ancestor_flags(element, cache, markers)]


def _ancestor_flags(
    element: lxml.html.HtmlElement, cache: dict[lxml.html.HtmlElement, int], markers: dict[str, int]
) -> int:
    """The hints of an element and its ancestors as bit flags, memoised per element."""
    chain = []
    node: lxml.html.HtmlElement | None = element
    inherited = 0
    while node is not None:
        cached = cache.get(node)
        if cached is not None:
            inherited = cached
            break
        chain.append(node)
        node = node.getparent()
    for node in reversed(chain):
        flags = inherited
        marker = f"{node.get('class', '')} {node.get('id', '')}"
        if len(marker) > 1:
            marker_flags = markers.get(marker)
            if marker_flags is None:
                marker_flags = markers[marker] = _marker_flags(marker)
            flags |= marker_flags
        flags |= _TAG_FLAGS.get(node.tag, 0)
        cache[node] = inherited = flags
    return inherited


def _marker_flags(marker: str) -> int:
    """Negative (1) and positive (2) content hints of a class/id string; markers repeat a lot."""
    marker = marker.lower()
    return (1 if _NEGATIVE_HINT.search(marker) else 0) | (2 if _POSITIVE_HINT.search(marker) else 0)


def _count_upper(text: str) -> int:
    """Number of upper-case characters, counted in C for ASCII text (most blocks)."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _NOT_ASCII_UPPER))
    return sum(map(str.isupper, text))
