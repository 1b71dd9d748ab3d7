"""Cheap per-block features that combine every stage's signal for the block scorer."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction.block_hints import HINT_BITS, TAG_FLAGS, marker_flags
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, segment_tokens

try:
    # The compiled climb (built with the text walk, see setup.py): the same flags, faster.
    from newscrawl.extraction._text_walk import ancestor_flags as _compiled_ancestor_flags
except ImportError:  # not built, or built for another lxml: `_ancestor_flags` does the same job
    _compiled_ancestor_flags = None  # type: ignore[assignment]

# Full-width forms are what Chinese and Japanese text punctuates with.
_PUNCTUATION = ".,;:!?、。，；：！？"
_UPPER_SAMPLE = 200
_SENTENCE_END = frozenset(".!?\"'”’)。！？」』）")  # segment texts are stripped: the last character
# Per code point below U+FFFF (`take(mode="clip")` sends the rest to U+FFFF, which is neither):
# 1 for punctuation plus 1 << 32 for an ASCII capital, so one running sum counts both.
_CHARACTER_TABLE = np.zeros(0x10000, dtype=np.int64)
_CHARACTER_TABLE[[ord(char) for char in _PUNCTUATION]] = 1
_CHARACTER_TABLE[ord("A") : ord("Z") + 1] = 1 << 32
_LOW_BITS = (1 << 32) - 1
_SENTENCE_END_TABLE = np.zeros(0x10000, dtype=bool)
_SENTENCE_END_TABLE[[ord(char) for char in _SENTENCE_END]] = True
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
# Column k: the five hint features of the flag combination k (see `block_hints`).
_HINT_TABLE = np.array(
    [[float(bool(flags & bit)) for flags in range(1 << len(HINT_BITS))] for bit in HINT_BITS]
)
# Tag group index of each grouped tag; column k of the table is group k's one-hot column, and
# the last column (no group) is all zeros.
_TAG_GROUP_OF: dict[str, int] = {
    tag: k for k, (_, group) in enumerate(_TAG_GROUPS) for tag in group
}
_NO_GROUP = len(_TAG_GROUPS)
_GROUP_TABLE = np.eye(len(_TAG_GROUPS), len(_TAG_GROUPS) + 1)

# Shared by every page: freeze them so no caller can change them by accident.
for _table in (_CHARACTER_TABLE, _SENTENCE_END_TABLE, _HINT_TABLE, _GROUP_TABLE):
    _table.setflags(write=False)
del _table

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

_COLUMN = {name: k for k, name in enumerate(FEATURE_NAMES)}
_LOG_WORDS = _COLUMN["log_words"]
_LOG_CHARS = _COLUMN["log_chars"]
_LINK_FRACTION = _COLUMN["link_fraction"]
_STATIC_FRACTION = _COLUMN["static_fraction"]
_STATIC_SUPPORT = _COLUMN["static_mean_support"]
_HAS_TEMPLATE = _COLUMN["has_template"]
_DYNAMIC_FRACTION = _COLUMN["dynamic_fraction"]
_RELEVANT = _COLUMN["ht_relevant"]
_IS_TITLE = _COLUMN["is_title"]
_AFTER_TITLE = _COLUMN["after_title"]
_TITLE_DISTANCE = _COLUMN["title_distance"]
_POSITION = _COLUMN["position"]
_ENDS_SENTENCE = _COLUMN["ends_sentence"]
_PUNCTUATION_PER_WORD = _COLUMN["punctuation_per_word"]
_TITLE_OVERLAP = _COLUMN["title_overlap"]
_TAG_FIRST = _COLUMN[_TAG_GROUPS[0][0]]
_TAG_END = _TAG_FIRST + len(_TAG_GROUPS)
# Parent, grandparent and great-grandparent: log chars and link fraction, interleaved.
_SUB_FIRST = _COLUMN["parent_log_chars"]
_SUB_END = _COLUMN["great_link_fraction"] + 1
_PARENT_LONG = _COLUMN["parent_long_blocks"]
_HINT_FIRST = _COLUMN["negative_hint"]
_HINT_END = _HINT_FIRST + len(HINT_BITS)
_PREV_WORDS = _COLUMN["prev_log_words"]
_PREV_LINKS = _COLUMN["prev_link_fraction"]
_NEXT_WORDS = _COLUMN["next_log_words"]
_NEXT_LINKS = _COLUMN["next_link_fraction"]
_SHARE = _COLUMN["share_of_page"]
_WORD_LENGTH = _COLUMN["word_length"]
_UPPER_FRACTION = _COLUMN["upper_fraction"]
_SAME_PREV = _COLUMN["prev_same_block_parent"]
_SAME_NEXT = _COLUMN["next_same_block_parent"]
_DYNAMIC_APPLIED = _COLUMN["dynamic_applied"]
_RELEVANCE_APPLIED = _COLUMN["relevance_applied"]


def compute_block_features(
    document: Document, title_keywords: set[str], config: ExtractionConfig
) -> np.ndarray:
    """One row of `FEATURE_NAMES` per segment of the document."""
    pieces = document.pieces
    segments = document.segments
    count = len(segments)
    if not count:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float64)
    # Pages have a few hundred segments: per-call numpy overhead, not arithmetic, is the cost,
    # so the Python data is gathered in a few list passes and every column is written in place.
    piece_chars = np.array([len(p.text.strip()) for p in pieces], dtype=np.float64)
    in_link = np.array([p.in_link for p in pieces], dtype=bool)
    cum_chars = np.zeros(len(pieces) + 1)
    np.cumsum(piece_chars, out=cum_chars[1:])
    cum_links = np.zeros(len(pieces) + 1)
    np.cumsum(piece_chars * in_link, out=cum_links[1:])
    firsts = np.array([s.first_piece for s in segments], dtype=np.intp)
    lasts = np.array([s.last_piece for s in segments], dtype=np.intp)
    chars = cum_chars[lasts] - cum_chars[firsts]
    safe_chars = np.maximum(chars, 1.0)
    link_fraction = (cum_links[lasts] - cum_links[firsts]) / safe_chars
    out = np.zeros((len(FEATURE_NAMES), count))

    has_template = document.static_applied and document.static_page_count >= config.static_min_pages
    if has_template:
        support_of = document.static_support
        support = np.array([support_of.get(p.element, 0.0) for p in pieces], dtype=np.float64)
        cum_support = np.concatenate(([0.0], np.cumsum(support * piece_chars)))
        is_static = support >= config.static_support - 1e-9
        cum_static = np.concatenate(([0.0], np.cumsum(piece_chars * is_static)))
        out[_STATIC_FRACTION] = (cum_static[lasts] - cum_static[firsts]) / safe_chars
        out[_STATIC_SUPPORT] = (cum_support[lasts] - cum_support[firsts]) / safe_chars
        out[_HAS_TEMPLATE] = 1.0
    if document.dynamic_noise:
        dynamic = np.zeros(len(pieces), dtype=bool)
        piece_range = document.piece_range
        for element in document.dynamic_noise:
            start, end = piece_range[element]
            dynamic[start:end] = True
        cum_dynamic = np.zeros(len(pieces) + 1)
        np.cumsum(piece_chars * dynamic, out=cum_dynamic[1:])
        out[_DYNAMIC_FRACTION] = (cum_dynamic[lasts] - cum_dynamic[firsts]) / safe_chars

    index = np.arange(count, dtype=np.float64)
    titles = document.title_segments
    if document.relevant_segments:
        out[_RELEVANT, list(document.relevant_segments)] = 1.0
    if titles:
        out[_IS_TITLE, titles] = 1.0
        out[_AFTER_TITLE] = index > titles[0]
        out[_TITLE_DISTANCE] = np.clip((index - titles[0]) / 50.0, -1.0, 1.0)

    word_counts: list[int] = []
    overlaps: list[float] = []
    groups: list[int] = []
    contains = title_keywords.__contains__
    group_of = _TAG_GROUP_OF
    for segment in segments:
        tokens = segment.tokens
        if tokens is None:
            tokens = segment_tokens(segment)
        word_count = len(tokens)
        word_counts.append(word_count)
        if not word_count:
            # Never scored (no words to add); only its neighbours read its size and links.
            overlaps.append(0.0)
            groups.append(_NO_GROUP)
            continue
        overlaps.append(sum(map(contains, tokens)) / word_count if title_keywords else 0.0)
        groups.append(group_of.get(segment.block.tag, _NO_GROUP))
    words = np.array(word_counts, dtype=np.float64)
    has_words = words > 0
    _character_features([segment.text for segment in segments], words, out)
    out[_TITLE_OVERLAP] = overlaps
    out[_TAG_FIRST:_TAG_END] = _GROUP_TABLE[:, groups]
    # The walk's per-element arrays, with a trailing sentinel so that index -1 (no such
    # ancestor) reads parent -1 and the empty range (0, 0).
    node_parents = np.array(document.node_parents + [-1], dtype=np.intp)
    node_starts = np.array(document.node_starts + [0], dtype=np.intp)
    node_ends = np.array(document.node_ends + [0], dtype=np.intp)
    block_list = [s.node for s in segments]
    blocks = np.array(block_list, dtype=np.intp)
    parents = node_parents[blocks]
    # Parent, grandparent and great-grandparent of each block (one row each); wordless blocks
    # read none.
    ancestors = np.empty((3, count), dtype=np.intp)
    ancestors[0] = parents
    ancestors[1] = node_parents[parents]
    ancestors[2] = node_parents[ancestors[1]]
    ancestors[:, ~has_words] = -1
    sub_ends = node_ends[ancestors]
    sub_starts = node_starts[ancestors]
    sub_chars = cum_chars[sub_ends] - cum_chars[sub_starts]
    sub_links = cum_links[sub_ends] - cum_links[sub_starts]
    out[_SUB_FIRST:_SUB_END:2] = np.log1p(sub_chars)
    out[_SUB_FIRST + 1 : _SUB_END : 2] = np.where(
        sub_chars > 0, sub_links / np.maximum(sub_chars, 1.0), 0.0
    )
    has_parent = parents >= 0
    long_counts = np.bincount(parents[has_parent & (words >= 10)], minlength=len(node_parents))
    out[_PARENT_LONG] = np.log1p(np.where(has_parent, long_counts[parents], 0))
    worded = [i for i, words_in in enumerate(word_counts) if words_in]
    out[_HINT_FIRST:_HINT_END, worded] = _HINT_TABLE[
        :, ancestor_flags(document, [block_list[i] for i in worded])
    ]
    log_words = out[_LOG_WORDS]
    np.log1p(words, out=log_words)
    out[_LOG_CHARS] = np.log1p(chars)
    out[_LINK_FRACTION] = link_fraction
    out[_POSITION] = index / count
    out[_PREV_WORDS, 1:] = log_words[:-1]
    out[_NEXT_WORDS, :-1] = log_words[1:]
    out[_PREV_LINKS, 1:] = link_fraction[:-1]
    out[_NEXT_LINKS, :-1] = link_fraction[1:]
    same_prev = has_parent[1:] & (parents[1:] == parents[:-1])
    out[_SAME_PREV, 1:] = same_prev
    out[_SAME_NEXT, :-1] = same_prev
    total_chars = float(cum_chars[-1]) or 1.0
    out[_SHARE] = chars / total_chars
    out[_WORD_LENGTH] = np.where(has_words, chars / np.maximum(words, 1.0), 0.0)
    if document.dynamic_applied:
        out[_DYNAMIC_APPLIED] = 1.0
    if document.relevance_applied:
        out[_RELEVANCE_APPLIED] = 1.0
    return np.ascontiguousarray(out.T)


def _character_features(texts: list[str], words: np.ndarray, out: np.ndarray) -> None:
    """Write per text: ends a sentence, punctuation per word, capitals share of its start.

    All texts are scanned at once as one array of code points instead of a dozen string scans
    per block; texts without words get zeros.
    """
    count = len(texts)
    lengths = np.array([len(text) for text in texts], dtype=np.intp)
    offsets = np.zeros(count + 1, dtype=np.intp)
    np.cumsum(lengths, out=offsets[1:])
    joined = "".join(texts)
    ascii_only = joined.isascii()
    if ascii_only:
        codes: np.ndarray = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    else:
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    starts = offsets[:-1]
    ends = offsets[1:]
    has_words = words > 0
    safe_words = np.maximum(words, 1.0)
    if len(codes):
        # A worded text is never empty, so its last character is at its end offset minus one.
        last = codes[np.maximum(ends - 1, 0)]
        out[_ENDS_SENTENCE] = _SENTENCE_END_TABLE.take(last, mode="clip") & has_words
    # One running sum counts both: punctuation in the low 32 bits, capitals above them.
    counted = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(_CHARACTER_TABLE.take(codes, mode="clip"), out=counted[1:])
    punctuation_counts = (counted[ends] - counted[starts]) & _LOW_BITS
    out[_PUNCTUATION_PER_WORD] = np.where(has_words, punctuation_counts / safe_words, 0.0)
    # Capitals matter in short labels and headings; the start of a long block is enough.
    head_lengths = np.minimum(lengths, _UPPER_SAMPLE)
    upper_counts = (counted[starts + head_lengths] - counted[starts]) >> 32
    if not ascii_only:
        for index, text in enumerate(texts):
            # Outside ASCII, capitals are whatever str.isupper says (rare: counted in Python).
            if not text.isascii() and has_words[index]:
                head = text[:_UPPER_SAMPLE]
                if not head.isascii():
                    upper_counts[index] = _count_upper(head)
    out[_UPPER_FRACTION] = np.where(has_words, upper_counts / np.maximum(head_lengths, 1), 0.0)


def ancestor_flags(document: Document, nodes: list[int]) -> list[int]:
    """`block_hints` flags of each walked element and all its ancestors, memoised by index."""
    if _compiled_ancestor_flags is not None:
        return _compiled_ancestor_flags(
            document.node_elements, document.node_parents, nodes, TAG_FLAGS, marker_flags
        )
    return _ancestor_flags(document, nodes)


def _ancestor_flags(document: Document, nodes: list[int]) -> list[int]:
    """`ancestor_flags` in Python: the reference for the compiled twin in `_text_walk.pyx`."""
    elements = document.node_elements
    parents = document.node_parents
    tag_flags = TAG_FLAGS
    # A marker's flags are its class's flags or its id's (see `marker_flags`), and the raw
    # attribute values repeat within a page: each distinct one is searched once.
    value_flags: dict[str, int] = {}
    known = [-1] * len(parents)
    found: list[int] = []
    for node in nodes:
        chain = []
        while node >= 0 and known[node] < 0:
            chain.append(node)
            node = parents[node]
        inherited = known[node] if node >= 0 else 0
        for step in reversed(chain):
            element = elements[step]
            flags = inherited | tag_flags.get(element.tag, 0)
            for marker in (element.get("class"), element.get("id")):
                if marker:
                    bits = value_flags.get(marker)
                    if bits is None:
                        bits = value_flags[marker] = marker_flags(marker)
                    flags |= bits
            known[step] = inherited = flags
        found.append(inherited)
    return found


def _count_upper(text: str) -> int:
    """Number of upper-case characters, counted in C for ASCII text (most blocks)."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _NOT_ASCII_UPPER))
    return sum(map(str.isupper, text))
