"""Cheap per-block features that combine every stage's signal for the block scorer."""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.block_hints import HINT_BITS, TAG_FLAGS, marker_flags
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, TextPiece
from newscrawl.extraction.tag_sets import (
    GENERIC_CONTAINER_TAGS,
    LIST_ITEM_TAGS,
    SET_OFF_TEXT_TAGS,
    SUBHEADING_TAGS,
    TABLE_CELL_TAGS,
)
from newscrawl.extraction.word_tokens import count_segment_words

# The compiled loops (see compiled_loops): what the Python functions below compute, faster;
# the feature table bit for bit as `_python_block_features`.
_walk = compiled_loops.node_walk
_rows = compiled_loops.block_rows
_compiled_ancestor_flags = None if _walk is None else _walk.ancestor_flags
_compiled_count_characters = None if _rows is None else _rows.count_characters
_compiled_int_rows = None if _rows is None else _rows.int_rows
_compiled_piece_chars = None if _rows is None else _rows.piece_chars
_compiled_fill_rows = None if _rows is None else _rows.fill_feature_rows
_compiled_worded_nodes = None if _rows is None else _rows.worded_nodes
# Whether `compute_block_features` fills the table in compiled code.
COMPILED_ROWS: bool = _rows is not None

# Full-width forms are what Chinese and Japanese text punctuates with.
_PUNCTUATION = ".,;:!?、。，；：！？"
_UPPER_SAMPLE = 200
# Segment texts are stripped: their last character is the last visible one.
_SENTENCE_END_CHARACTERS = ".!?\"'”’)。！？」』）"
_SENTENCE_END = frozenset(_SENTENCE_END_CHARACTERS)
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
# The block model's one-hot tag columns, in column order: a trained model depends on it.
_TAG_GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    ("tag_p", frozenset({"p"})),
    ("tag_li", LIST_ITEM_TAGS),
    ("tag_h1", frozenset({"h1"})),
    ("tag_h", SUBHEADING_TAGS),
    ("tag_td", TABLE_CELL_TAGS),
    ("tag_div", GENERIC_CONTAINER_TAGS),
    ("tag_quote", SET_OFF_TEXT_TAGS),
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
_CHARACTER_ROWS = [_ENDS_SENTENCE, _PUNCTUATION_PER_WORD, _UPPER_FRACTION]
_DYNAMIC_APPLIED = _COLUMN["dynamic_applied"]
_RELEVANCE_APPLIED = _COLUMN["relevance_applied"]


def compute_block_features(
    document: Document, title_keywords: AbstractSet[str], config: ExtractionConfig
) -> np.ndarray:
    """One row of `FEATURE_NAMES` per segment of the document."""
    if not document.segments:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float64)
    if COMPILED_ROWS:
        return _compiled_block_features(document, title_keywords, config)
    return _python_block_features(document, title_keywords, config)


def _has_template(document: Document, config: ExtractionConfig) -> bool:
    """Whether the static-noise columns are filled: a template learnt from enough pages."""
    return document.static_applied and document.static_page_count >= config.static_min_pages


def _compiled_block_features(
    document: Document, title_keywords: AbstractSet[str], config: ExtractionConfig
) -> np.ndarray:
    """`_python_block_features` with the table filled by `_block_rows.fill_feature_rows`."""
    segments = document.segments
    texts = [segment.text for segment in segments]
    word_counts = count_segment_words(document, title_keywords)
    character_counts = np.empty((4, len(texts)), dtype=np.int64)
    _compiled_count_characters(
        texts, _PUNCTUATION, _SENTENCE_END_CHARACTERS, _UPPER_SAMPLE, character_counts
    )
    piece_values = piece_char_rows(document)
    flags = ancestor_flags(document, _compiled_worded_nodes(segments, word_counts[0]))
    out = np.zeros((len(segments), len(FEATURE_NAMES)))
    _compiled_fill_rows(
        document,
        _has_template(document, config),
        config.static_support - 1e-9,
        piece_values,
        word_counts,
        character_counts,
        flags,
        HINT_BITS,
        _TAG_GROUP_OF,
        _NO_GROUP,
        _COLUMN,
        out,
    )
    return out


def _python_block_features(
    document: Document, title_keywords: AbstractSet[str], config: ExtractionConfig
) -> np.ndarray:
    """`compute_block_features` in numpy: the reference for `_feature_rows.pxi`."""
    pieces = document.pieces
    segments = document.segments
    count = len(segments)
    # Pages have a few hundred segments: per-call numpy overhead, not arithmetic, is the cost,
    # so the Python data is gathered in a few passes and columns are computed a block at a time.
    piece_count = len(pieces)
    has_template = _has_template(document, config)
    dynamic_noise = document.dynamic_noise
    # Per piece, the values summed over a span of pieces: chars and link chars, then the chars
    # in dynamic noise (when the stage found some), static support times chars and static chars
    # (with a template). One running sum per row gives every span's sums by subtraction.
    row_count = 2 + bool(dynamic_noise) + 2 * has_template
    values = np.empty((row_count, piece_count))
    _piece_chars(pieces, values[:2])
    piece_chars = values[0]
    row = 2
    if dynamic_noise:
        dynamic = np.zeros(piece_count, dtype=bool)
        piece_range = document.piece_range
        for element in dynamic_noise:
            start, end = piece_range[element]
            dynamic[start:end] = True
        np.multiply(piece_chars, dynamic, out=values[row])
        row += 1
    if has_template:
        support_of = document.static_support
        support = np.array([support_of.get(p.element, 0.0) for p in pieces], dtype=np.float64)
        np.multiply(support, piece_chars, out=values[row])
        np.multiply(piece_chars, support >= config.static_support - 1e-9, out=values[row + 1])
    sums = np.zeros((row_count, piece_count + 1))
    np.cumsum(values, axis=1, out=sums[:, 1:])
    cum_chars = sums[0]
    cum_links = sums[1]
    block_list = [s.node for s in segments]
    segment_table = np.empty((3, count), dtype=np.intp)
    _int_rows(
        [[s.first_piece for s in segments], [s.last_piece for s in segments], block_list],
        segment_table,
    )
    firsts, lasts, blocks = segment_table
    spans = sums[:, lasts] - sums[:, firsts]
    chars = spans[0]
    # Link fraction, then the dynamic and static fractions and the mean static support.
    fractions = spans[1:] / np.maximum(chars, 1.0)
    link_fraction = fractions[0]
    out = np.zeros((len(FEATURE_NAMES), count))
    row = 1
    if dynamic_noise:
        out[_DYNAMIC_FRACTION] = fractions[row]
        row += 1
    if has_template:
        out[_STATIC_SUPPORT] = fractions[row]
        out[_STATIC_FRACTION] = fractions[row + 1]
        out[_HAS_TEMPLATE] = 1.0

    index = np.arange(count, dtype=np.float64)
    titles = document.title_segments
    if document.relevant_segments:
        out[_RELEVANT, list(document.relevant_segments)] = 1.0
    if titles:
        out[_IS_TITLE, titles] = 1.0
        out[_AFTER_TITLE] = index > titles[0]
        # np.clip, without its Python-level argument handling.
        distance = out[_TITLE_DISTANCE]
        np.divide(index - titles[0], 50.0, out=distance)
        np.minimum(np.maximum(distance, -1.0, out=distance), 1.0, out=distance)

    texts = [segment.text for segment in segments]
    word_and_key_counts = count_segment_words(document, title_keywords)
    word_counts = word_and_key_counts[0].tolist()
    # Only worded blocks are scored; the others' tags are never read (group: none).
    group_of = _TAG_GROUP_OF
    groups = [
        group_of.get(segment.block.tag, _NO_GROUP) if words_in else _NO_GROUP
        for segment, words_in in zip(segments, word_counts, strict=True)
    ]
    words = word_and_key_counts[0].astype(np.float64)
    has_words = words > 0
    safe_words = np.maximum(words, 1.0)
    _character_features(texts, words, out)
    out[_TITLE_OVERLAP] = np.where(has_words, word_and_key_counts[1] / safe_words, 0.0)
    out[_TAG_FIRST:_TAG_END] = _GROUP_TABLE[:, groups]
    # The walk's per-element arrays, with a trailing sentinel so that index -1 (no such
    # ancestor) reads parent -1 and the empty range (0, 0).
    node_table = np.empty((3, len(document.node_parents) + 1), dtype=np.intp)
    node_table[:, -1] = (-1, 0, 0)
    _int_rows([document.node_parents, document.node_starts, document.node_ends], node_table)
    node_parents, node_starts, node_ends = node_table
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
    out[_SUB_FIRST:_SUB_END:2] = _log1p(sub_chars)
    out[_SUB_FIRST + 1 : _SUB_END : 2] = np.where(
        sub_chars > 0, sub_links / np.maximum(sub_chars, 1.0), 0.0
    )
    has_parent = parents >= 0
    long_counts = np.bincount(parents[has_parent & (words >= 10)], minlength=len(node_parents))
    out[_PARENT_LONG] = _log1p(np.where(has_parent, long_counts[parents], 0))
    worded = [i for i, words_in in enumerate(word_counts) if words_in]
    out[_HINT_FIRST:_HINT_END, worded] = _HINT_TABLE[
        :, ancestor_flags(document, [block_list[i] for i in worded])
    ]
    log_words = out[_LOG_WORDS]
    log_words[:] = _log1p(words)
    out[_LOG_CHARS] = _log1p(chars)
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


def _log1p(values: np.ndarray) -> np.ndarray:
    """`log1p` of each value by the C library, as the compiled table computes it.

    numpy's own log1p (SIMD since numpy 2.4) differs from libm's in the last bit on some values,
    and may differ between CPUs: libm's keeps the two tables, and so the kept blocks, the same.
    """
    flat = np.asarray(values, dtype=np.float64).ravel()
    return np.fromiter(map(math.log1p, flat.tolist()), np.float64, len(flat)).reshape(
        np.shape(values)
    )


def _character_features(texts: list[str], words: np.ndarray, out: np.ndarray) -> None:
    """Write per text: ends a sentence, punctuation per word, capitals share of its start."""
    if _compiled_count_characters is not None:
        counts = np.empty((4, len(texts)), dtype=np.int64)
        _compiled_count_characters(
            texts, _PUNCTUATION, _SENTENCE_END_CHARACTERS, _UPPER_SAMPLE, counts
        )
    else:
        counts = _count_characters(texts)
    # Rows of counts: ends a sentence (0 or 1), punctuation, capitals in the head, head length.
    values = np.empty((3, len(texts)))
    values[0] = counts[0]
    np.divide(counts[1], np.maximum(words, 1.0), out=values[1])
    np.divide(counts[2], np.maximum(counts[3], 1), out=values[2])
    # Texts without words get zeros (every value is finite and not negative: times 0 is +0.0).
    values *= words > 0
    out[_CHARACTER_ROWS] = values


def _piece_chars(pieces: list[TextPiece], out: np.ndarray) -> None:
    """Write per piece: its stripped length, and again in the second row if it is in a link."""
    if _compiled_piece_chars is not None:
        _compiled_piece_chars(pieces, out)
        return
    # The reference for `_block_rows.piece_chars`.
    out[0] = [len(piece.text.strip()) for piece in pieces]
    np.multiply(out[0], np.array([piece.in_link for piece in pieces], dtype=bool), out=out[1])


def piece_char_rows(document: Document) -> np.ndarray:
    """Per piece (a column), its stripped length, and again in the second row if in a link.

    Computed once per document (pieces never change after parsing); callers must not write it.
    """
    if document.piece_chars is None:
        out = np.empty((2, len(document.pieces)))
        _piece_chars(document.pieces, out)
        out.setflags(write=False)
        document.piece_chars = out
    return document.piece_chars


def _int_rows(rows: list[list[int]], out: np.ndarray) -> None:
    """Copy each list of ints into the start of its row of `out`."""
    if _compiled_int_rows is not None:
        _compiled_int_rows(rows, out)
        return
    # The reference for `_block_rows.int_rows`.
    for row, values in enumerate(rows):
        out[row, : len(values)] = values


def _count_characters(texts: list[str]) -> np.ndarray:
    """Rows per text: ends a sentence, punctuation, capitals in its head, the head's length."""
    # The reference for `_block_rows.count_characters`: all texts are scanned at once as one
    # array of code points instead of a dozen string scans per block.
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
    sentence_ends = np.zeros(count, dtype=bool)
    if len(codes):
        # A non-empty text's last character is at its end offset minus one.
        last = codes[np.maximum(ends - 1, 0)]
        sentence_ends = _SENTENCE_END_TABLE.take(last, mode="clip") & (lengths > 0)
    # One running sum counts both: punctuation in the low 32 bits, capitals above them.
    counted = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(_CHARACTER_TABLE.take(codes, mode="clip"), out=counted[1:])
    marks = (counted[ends] - counted[starts]) & _LOW_BITS
    head_lengths = np.minimum(lengths, _UPPER_SAMPLE)
    capitals = (counted[starts + head_lengths] - counted[starts]) >> 32
    if not ascii_only:
        for index, text in enumerate(texts):
            # Outside ASCII, capitals are whatever str.isupper says (rare: counted in Python).
            if not text.isascii():
                head = text[:_UPPER_SAMPLE]
                if not head.isascii():
                    capitals[index] = _count_upper(head)
    # Capitals matter in short labels and headings; the start of a long block is enough.
    return np.array([sentence_ends, marks, capitals, head_lengths], dtype=np.int64)


def ancestor_flags(document: Document, nodes: list[int]) -> list[int]:
    """`block_hints` flags of each walked element and all its ancestors, memoised by index.

    The memo lives on the Document (`ancestor_memo`): the container rules ask for ancestors of
    the blocks the features climbed from already.
    """
    memo = document.ancestor_memo
    if _compiled_ancestor_flags is not None:
        if memo is None:
            memo = document.ancestor_memo = _walk.FlagMemo(len(document.node_parents))
        return _compiled_ancestor_flags(
            document.node_elements, document.node_parents, nodes, TAG_FLAGS, marker_flags, memo
        )
    if memo is None:
        memo = document.ancestor_memo = FlagMemo(len(document.node_parents))
    return _ancestor_flags(document, nodes, memo)


@dataclass(eq=False, slots=True)
class FlagMemo:
    """What `_ancestor_flags` learnt of one page, kept between its calls on that page."""

    count: int
    # Flags of each walked element climbed so far (-1: not yet).
    known: list[int] = field(init=False)
    # A marker's flags are its class's flags or its id's (see `marker_flags`), and the raw
    # attribute values repeat within a page: each distinct one is searched once.
    value_flags: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.known = [-1] * self.count


def _ancestor_flags(
    document: Document, nodes: list[int], memo: FlagMemo | None = None
) -> list[int]:
    """`ancestor_flags` in Python: the reference for the compiled twin in `_ancestor_flags.pxi`.

    `memo` (made for this page) carries what earlier calls learnt; without it, each starts afresh.
    """
    elements = document.node_elements
    parents = document.node_parents
    tag_flags = TAG_FLAGS
    if memo is None:
        memo = FlagMemo(len(parents))
    elif memo.count != len(parents):
        raise ValueError("the memo was made for another page")
    value_flags = memo.value_flags
    known = memo.known
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
