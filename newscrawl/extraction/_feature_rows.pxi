# Included by _block_rows.pyx: the block feature table (`block_features._python_block_features`).
# At a page's size (a few hundred blocks) the Python version's cost is some sixty numpy calls
# and a dozen list comprehensions, not arithmetic. This fills the same table in one pass per
# block. Every value is computed with the same IEEE operations in the same order as numpy does
# them (running sums are sequential, as np.cumsum's; log1p is libm's, as `block_features._log1p`
# is), so the table is equal bit for bit: tests/extraction/test_feature_rows.py compares the two.
# `fill_feature_rows` divides as C and numpy do (`cdivision`): no zero check, 0/0 is NaN.

cdef enum:
    # Running sums per piece, one row each: chars, link chars, chars in dynamic noise, static
    # support times chars, chars with enough static support.
    CHARS = 0
    LINKS = 1
    DYNAMIC = 2
    SUPPORT = 3
    STATIC = 4
    SUM_ROWS = 5
    # Ancestor levels read per block: parent, grandparent, great-grandparent.
    LEVELS = 3


cdef struct Columns:
    Py_ssize_t log_words, log_chars, link_fraction, static_fraction, static_support
    Py_ssize_t has_template, dynamic_fraction, relevant, is_title, after_title
    Py_ssize_t title_distance, position, ends_sentence, punctuation_per_word, title_overlap
    Py_ssize_t tag_first, sub_first, parent_long, hint_first, prev_words, prev_links
    Py_ssize_t next_words, next_links, share, word_length, upper_fraction, same_prev, same_next
    Py_ssize_t dynamic_applied, relevance_applied


cdef Columns _read_columns(dict column) except *:
    cdef Columns c
    c.log_words = column["log_words"]
    c.log_chars = column["log_chars"]
    c.link_fraction = column["link_fraction"]
    c.static_fraction = column["static_fraction"]
    c.static_support = column["static_mean_support"]
    c.has_template = column["has_template"]
    c.dynamic_fraction = column["dynamic_fraction"]
    c.relevant = column["ht_relevant"]
    c.is_title = column["is_title"]
    c.after_title = column["after_title"]
    c.title_distance = column["title_distance"]
    c.position = column["position"]
    c.ends_sentence = column["ends_sentence"]
    c.punctuation_per_word = column["punctuation_per_word"]
    c.title_overlap = column["title_overlap"]
    c.tag_first = column["tag_p"]
    c.sub_first = column["parent_log_chars"]
    c.parent_long = column["parent_long_blocks"]
    c.hint_first = column["negative_hint"]
    c.prev_words = column["prev_log_words"]
    c.prev_links = column["prev_link_fraction"]
    c.next_words = column["next_log_words"]
    c.next_links = column["next_link_fraction"]
    c.share = column["share_of_page"]
    c.word_length = column["word_length"]
    c.upper_fraction = column["upper_fraction"]
    c.same_prev = column["prev_same_block_parent"]
    c.same_next = column["next_same_block_parent"]
    c.dynamic_applied = column["dynamic_applied"]
    c.relevance_applied = column["relevance_applied"]
    return c


def worded_nodes(list segments, const int64_t[:] words):
    """Walk index (`Segment.node`) of each segment that has a word, in order."""
    cdef Py_ssize_t index
    if words.shape[0] != len(segments):
        raise ValueError("words must have one count per segment")
    return [
        (<Segment?>segments[index]).node for index in range(len(segments)) if words[index] > 0
    ]


@cython.cdivision(True)
def fill_feature_rows(
    document,
    bint has_template,
    double static_threshold,
    const double[:, ::1] piece_values,
    const int64_t[:, ::1] word_counts,
    const int64_t[:, ::1] character_counts,
    list flags,
    tuple hint_bits,
    dict group_of,
    Py_ssize_t no_group,
    dict column,
    double[:, ::1] out,
):
    """Write `FEATURE_NAMES`' row of every segment into `out` (zeros, one row per segment).

    `piece_values` is `_piece_chars`' table, `word_counts` `count_words`' and `character_counts`
    `_count_characters`'; `flags` are `ancestor_flags` of the worded segments, in order.
    """
    cdef list segments = document.segments
    cdef list pieces = document.pieces
    cdef list parents_list = document.node_parents
    cdef list starts_list = document.node_starts
    cdef list ends_list = document.node_ends
    cdef Py_ssize_t count = len(segments)
    cdef Py_ssize_t piece_count = len(pieces)
    cdef Py_ssize_t node_count = len(parents_list)
    cdef Columns c = _read_columns(column)
    cdef Py_ssize_t index, piece, row, level, bit, start, end, first, last, node, ancestor
    cdef Py_ssize_t title_first = -1
    cdef Py_ssize_t worded = 0
    cdef Py_ssize_t group
    cdef long long bits
    cdef double chars, words, safe_chars, distance, sub_chars, total_chars
    cdef double support
    cdef bint dynamic = bool(document.dynamic_noise)
    cdef bint dynamic_applied = document.dynamic_applied
    cdef bint relevance_applied = document.relevance_applied
    cdef Segment segment
    if out.shape[0] != count or out.shape[1] <= c.relevance_applied:
        raise ValueError("out must have a row per segment and a column per feature")
    if piece_values.shape[0] != 2 or piece_values.shape[1] != piece_count:
        raise ValueError("piece_values must have 2 rows and a column per piece")
    if (
        word_counts.shape[0] != 2 or word_counts.shape[1] != count
        or character_counts.shape[0] != 4 or character_counts.shape[1] != count
    ):
        raise ValueError("word and character counts must have a column per segment")
    if len(starts_list) != node_count or len(ends_list) != node_count:
        raise ValueError("node_parents, node_starts and node_ends differ in length")
    if count == 0:
        return

    # Per piece, the values summed over spans; then their running sums (row r's sum over
    # pieces [a, b) is sums[r, b] - sums[r, a]).
    sums_array = np.zeros((SUM_ROWS, piece_count + 1))
    cdef double[:, ::1] sums = sums_array
    cdef double[:, ::1] values = np.zeros((SUM_ROWS, piece_count))
    for piece in range(piece_count):
        values[CHARS, piece] = piece_values[0, piece]
        values[LINKS, piece] = piece_values[1, piece]
    if dynamic:
        piece_range = document.piece_range
        for element in document.dynamic_noise:
            start, end = piece_range[element]
            for piece in range(max(start, 0), min(end, piece_count)):
                values[DYNAMIC, piece] = values[CHARS, piece]
    if has_template:
        support_of = document.static_support
        for piece in range(piece_count):
            support = support_of.get((<TextPiece?>pieces[piece]).element, 0.0)
            values[SUPPORT, piece] = support * values[CHARS, piece]
            values[STATIC, piece] = values[CHARS, piece] if support >= static_threshold else 0.0
    for row in range(SUM_ROWS):
        for piece in range(piece_count):
            sums[row, piece + 1] = sums[row, piece] + values[row, piece]
    total_chars = sums[CHARS, piece_count]
    if total_chars == 0.0:
        total_chars = 1.0

    # Per node: parent, piece range; per segment: block node, piece span, words.
    cdef Py_ssize_t[::1] node_parents = np.empty(node_count + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] node_starts = np.empty(node_count + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] node_ends = np.empty(node_count + 1, dtype=np.intp)
    for node in range(node_count):
        node_parents[node] = parents_list[node]
        node_starts[node] = starts_list[node]
        node_ends[node] = ends_list[node]
        if node_parents[node] < -1 or node_parents[node] >= node_count:
            raise IndexError("a node's parent is out of range")
        if not 0 <= node_starts[node] <= node_ends[node] <= piece_count:
            raise IndexError("a node's piece range is out of range")
    # Index -1 (no such ancestor) reads the sentinel: parent -1, empty range.
    node_parents[node_count] = -1
    node_starts[node_count] = 0
    node_ends[node_count] = 0
    cdef Py_ssize_t[::1] parents = np.empty(count, dtype=np.intp)
    cdef Py_ssize_t[::1] long_counts = np.zeros(node_count + 1, dtype=np.intp)
    cdef double[::1] link_fraction = np.empty(count)
    cdef double[::1] log_words = np.empty(count)

    titles = document.title_segments
    if titles:
        title_first = titles[0]
        for index in titles:
            if not 0 <= index < count:
                raise IndexError("a title segment is out of range")
            out[index, c.is_title] = 1.0
    for index in document.relevant_segments:
        if not 0 <= index < count:
            raise IndexError("a relevant segment is out of range")
        out[index, c.relevant] = 1.0

    for index in range(count):
        segment = <Segment?>segments[index]
        first = segment.first_piece
        last = segment.last_piece
        node = segment.node
        if not 0 <= first <= last <= piece_count:
            raise IndexError("a segment's piece range is out of range")
        if not 0 <= node < node_count:
            raise IndexError("a segment's node is out of range")
        chars = sums[CHARS, last] - sums[CHARS, first]
        safe_chars = chars if chars > 1.0 else 1.0
        link_fraction[index] = (sums[LINKS, last] - sums[LINKS, first]) / safe_chars
        if dynamic:
            out[index, c.dynamic_fraction] = (sums[DYNAMIC, last] - sums[DYNAMIC, first]) / safe_chars
        if has_template:
            out[index, c.static_support] = (sums[SUPPORT, last] - sums[SUPPORT, first]) / safe_chars
            out[index, c.static_fraction] = (sums[STATIC, last] - sums[STATIC, first]) / safe_chars
            out[index, c.has_template] = 1.0
        if title_first >= 0:
            out[index, c.after_title] = index > title_first
            distance = (<double>index - title_first) / 50.0
            if distance < -1.0:
                distance = -1.0
            if distance > 1.0:
                distance = 1.0
            out[index, c.title_distance] = distance

        words = <double>word_counts[0, index]
        parents[index] = node_parents[node]
        if words > 0:
            out[index, c.ends_sentence] = <double>character_counts[0, index]
            out[index, c.punctuation_per_word] = <double>character_counts[1, index] / words
            out[index, c.upper_fraction] = (
                <double>character_counts[2, index] / <double>max(character_counts[3, index], 1)
            )
            out[index, c.title_overlap] = <double>word_counts[1, index] / words
            out[index, c.word_length] = chars / words
            group = group_of.get(segment.block.tag, no_group)
            if 0 <= group < no_group:
                out[index, c.tag_first + group] = 1.0
            # The parent, grandparent and great-grandparent's chars and link fraction.
            ancestor = parents[index]
            for level in range(LEVELS):
                start = node_starts[ancestor if ancestor >= 0 else node_count]
                end = node_ends[ancestor if ancestor >= 0 else node_count]
                sub_chars = sums[CHARS, end] - sums[CHARS, start]
                out[index, c.sub_first + 2 * level] = log1p(sub_chars)
                if sub_chars > 0:
                    out[index, c.sub_first + 2 * level + 1] = (
                        (sums[LINKS, end] - sums[LINKS, start])
                        / (sub_chars if sub_chars > 1.0 else 1.0)
                    )
                ancestor = node_parents[ancestor if ancestor >= 0 else node_count]
            if worded >= len(flags):
                raise ValueError("flags must have one entry per worded segment")
            bits = flags[worded]
            worded += 1
            for bit in range(len(hint_bits)):
                if bits & <long long>hint_bits[bit]:
                    out[index, c.hint_first + bit] = 1.0
            if words >= 10 and parents[index] >= 0:
                long_counts[parents[index]] += 1
        log_words[index] = log1p(words)
        out[index, c.log_words] = log_words[index]
        out[index, c.log_chars] = log1p(chars)
        out[index, c.link_fraction] = link_fraction[index]
        out[index, c.position] = <double>index / count
        out[index, c.share] = chars / total_chars
        if dynamic_applied:
            out[index, c.dynamic_applied] = 1.0
        if relevance_applied:
            out[index, c.relevance_applied] = 1.0
    if worded != len(flags):
        raise ValueError("flags must have one entry per worded segment")

    # What reads the neighbours or the whole page's counts.
    for index in range(count):
        if parents[index] >= 0:
            out[index, c.parent_long] = log1p(<double>long_counts[parents[index]])
        if index > 0:
            out[index, c.prev_words] = log_words[index - 1]
            out[index, c.prev_links] = link_fraction[index - 1]
            if parents[index] >= 0 and parents[index] == parents[index - 1]:
                out[index, c.same_prev] = 1.0
                out[index - 1, c.same_next] = 1.0
        if index + 1 < count:
            out[index, c.next_words] = log_words[index + 1]
            out[index, c.next_links] = link_fraction[index + 1]
