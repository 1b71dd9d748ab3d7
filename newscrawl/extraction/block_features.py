"""Cheap per-block features that combine every stage's signal for the block scorer."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction.block_hints import HINT_BITS, TAG_FLAGS, marker_flags
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, segment_tokens

# Full-width forms are what Chinese and Japanese text punctuates with.
_PUNCTUATION = ".,;:!?、。，；：！？"
_UPPER_SAMPLE = 200
_SENTENCE_END = frozenset(".!?\"'”’)。！？」』）")  # segment texts are stripped: the last character
_PUNCTUATION_CODES = np.array([ord(char) for char in _PUNCTUATION], dtype="<u4")
_SENTENCE_END_CODES = np.array([ord(char) for char in _SENTENCE_END], dtype="<u4")
# bytes.translate deletes every byte but A-Z: what is left counts an ASCII text's capitals.
_NOT_ASCII_UPPER = bytes(b for b in range(256) if not 65 <= b <= 90)
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
# Row k: the five hint features of the flag combination k (see `block_hints`).
_HINT_TABLE = np.array(
    [[float(bool(flags & bit)) for bit in HINT_BITS] for flags in range(1 << len(HINT_BITS))]
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

    word_counts: list[int] = []
    per_segment: list[tuple[float, ...]] = []
    empty_row = (0.0,) * (1 + len(_TAG_GROUPS))
    for segment in segments:
        tokens = segment_tokens(segment)
        word_count = len(tokens)
        word_counts.append(word_count)
        if not word_count:
            # Never scored (no words to add); only its neighbours read its size and links.
            per_segment.append(empty_row)
            continue
        overlap = (
            sum(map(title_keywords.__contains__, tokens)) / word_count if title_keywords else 0.0
        )
        per_segment.append((overlap, *_TAG_ONE_HOT.get(segment.block.tag, _NO_TAG)))
    local = np.asarray(per_segment, dtype=np.float64)
    words = np.asarray(word_counts, dtype=np.float64)
    has_words = words > 0
    ends_sentence, punctuation, upper = _character_features(
        [segment.text for segment in segments], words
    )
    # The walk's per-element arrays, with a trailing sentinel so that index -1 (no such
    # ancestor) reads parent -1 and the empty range (0, 0).
    node_parents = np.asarray([*document.node_parents, -1], dtype=np.int64)
    node_starts = np.asarray([*document.node_starts, 0], dtype=np.int64)
    node_ends = np.asarray([*document.node_ends, 0], dtype=np.int64)
    blocks = np.fromiter((s.node for s in segments), dtype=np.int64, count=count)
    parents = node_parents[blocks]
    # Parent, grandparent and great-grandparent of each block; wordless blocks read none.
    grandparents = node_parents[parents]
    ancestors = np.column_stack((parents, grandparents, node_parents[grandparents]))
    ancestors[~has_words] = -1
    sub_chars = cum_chars[node_ends[ancestors]] - cum_chars[node_starts[ancestors]]
    sub_links = cum_links[node_ends[ancestors]] - cum_links[node_starts[ancestors]]
    sub_log = np.log1p(sub_chars)
    sub_fraction = np.where(sub_chars > 0, sub_links / np.maximum(sub_chars, 1.0), 0.0)
    has_parent = parents >= 0
    long_counts = np.bincount(parents[has_parent & (words >= 10)], minlength=len(node_parents))
    parent_long = np.log1p(np.where(has_parent, long_counts[parents], 0))
    hints = np.zeros((count, len(HINT_BITS)))
    worded = np.flatnonzero(has_words)
    hints[worded] = _HINT_TABLE[ancestor_flags(document, blocks[worded].tolist())]
    log_words = np.log1p(words)
    prev_words = np.concatenate(([0.0], log_words[:-1]))
    next_words = np.concatenate((log_words[1:], [0.0]))
    prev_links = np.concatenate(([0.0], link_fraction[:-1]))
    next_links = np.concatenate((link_fraction[1:], [0.0]))
    same_prev = np.zeros(count)
    same_prev[1:] = has_parent[1:] & (parents[1:] == parents[:-1])
    same_next = np.zeros(count)
    same_next[:-1] = same_prev[1:]
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
        ends_sentence,
        punctuation,
        local[:, 0],
        *(local[:, 1 + k] for k in range(len(_TAG_GROUPS))),
        sub_log[:, 0],
        sub_fraction[:, 0],
        sub_log[:, 1],
        sub_fraction[:, 1],
        sub_log[:, 2],
        sub_fraction[:, 2],
        parent_long,
        *(hints[:, k] for k in range(hints.shape[1])),
        prev_words,
        prev_links,
        next_words,
        next_links,
        chars / total_chars,
        word_length,
        upper,
        same_prev,
        same_next,
        ones * float(document.dynamic_applied),
        ones * float(document.relevance_applied),
    ]
    return np.column_stack(columns)


def _character_features(
    texts: list[str], words: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per text: ends a sentence, punctuation per word, capitals share of its start.

    All texts are scanned at once as one array of code points instead of a dozen string scans
    per block; texts without words get zeros.
    """
    count = len(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=count)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype="<u4")
    starts = offsets[:-1]
    has_words = words > 0
    # A worded text is never empty, so its last character is at its end offset minus one.
    last = codes[np.maximum(offsets[1:] - 1, 0)] if len(codes) else np.zeros(count, "<u4")
    ends_sentence = (np.isin(last, _SENTENCE_END_CODES) & has_words).astype(np.float64)
    punctuation_before = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(np.isin(codes, _PUNCTUATION_CODES), out=punctuation_before[1:])
    punctuation_counts = punctuation_before[offsets[1:]] - punctuation_before[starts]
    punctuation = np.where(has_words, punctuation_counts / np.maximum(words, 1.0), 0.0)
    # Capitals matter in short labels and headings; the start of a long block is enough.
    upper_before = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum((codes >= 65) & (codes <= 90), out=upper_before[1:])
    head_lengths = np.minimum(lengths, _UPPER_SAMPLE)
    upper_counts = upper_before[starts + head_lengths] - upper_before[starts]
    for index, text in enumerate(texts):
        # Outside ASCII, capitals are whatever str.isupper says (rare: counted in Python).
        if not text.isascii() and has_words[index]:
            head = text[:_UPPER_SAMPLE]
            if not head.isascii():
                upper_counts[index] = _count_upper(head)
    upper = np.where(has_words, upper_counts / np.maximum(head_lengths, 1), 0.0)
    return ends_sentence, punctuation, upper


def ancestor_flags(document: Document, nodes: list[int]) -> list[int]:
    """`block_hints` flags of each walked element and all its ancestors, memoised by index."""
    elements = document.node_elements
    parents = document.node_parents
    known = [-1] * len(parents)
    markers: dict[str, int] = {}
    found: list[int] = []
    for node in nodes:
        chain = []
        while node >= 0 and known[node] < 0:
            chain.append(node)
            node = parents[node]
        inherited = known[node] if node >= 0 else 0
        for step in reversed(chain):
            element = elements[step]
            flags = inherited | TAG_FLAGS.get(element.tag, 0)
            class_name = element.get("class")
            element_id = element.get("id")
            if class_name or element_id:
                marker = f"{class_name or ''} {element_id or ''}"
                marker_bits = markers.get(marker)
                if marker_bits is None:
                    marker_bits = markers[marker] = marker_flags(marker)
                flags |= marker_bits
            known[step] = inherited = flags
        found.append(inherited)
    return found


def _count_upper(text: str) -> int:
    """Number of upper-case characters, counted in C for ASCII text (most blocks)."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _NOT_ASCII_UPPER))
    return sum(map(str.isupper, text))
