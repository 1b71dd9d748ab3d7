# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twin of title relevance's per-block loops (`relevance._relevant_blocks`)."""

# `relevant_blocks` is `_relevant_blocks` with `_best_group`, line for line: the removed and
# link-only tests per block, the headline test, and the paragraph groups keyed by walk index.
# It reads the walk's pieces and segments through their C fields and the blocks' tags from
# libxml2's nodes, so a page costs no Python frame per block;
# tests/extraction/test_compiled_relevance.py compares it with the Python loops.

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cimport lxml.includes.etreepublic as cetree
from lxml.includes.tree cimport xmlNode
from newscrawl.extraction._libxml_nodes cimport TagMemo, check_lxml_major, require_element, tag_in
from newscrawl.extraction._text_walk cimport Segment, TextPiece

cetree.import_lxml__etree()

# The lxml this module was compiled against (see `_libxml_nodes.check_lxml_major`).
BUILT_FOR_LXML: str = check_lxml_major("_relevance")

cdef struct Blocks:
    # Per segment: words and keyword hits (after removals), and whether only links are left.
    int64_t* words
    int64_t* keys
    char* link_only
    # Paragraph groups of one range: per walk index the group it keys (-1 none), per group its
    # key and member chain, per segment the next member of its group.
    Py_ssize_t* group_of
    Py_ssize_t* group_keys
    Py_ssize_t* first_member
    Py_ssize_t* last_member
    Py_ssize_t* next_member


cdef inline xmlNode* _c_node_of(object element) except NULL:
    """The libxml2 node of an lxml element (TypeError for anything else)."""
    return require_element(element)._c_node


cdef Py_ssize_t _walk_index(Py_ssize_t node, Py_ssize_t node_count) except -1:
    """`node`, if it is a walk index; IndexError rather than a read past the walk's arrays."""
    if not 0 <= node < node_count:
        raise IndexError("walk index out of range")
    return node


cdef Py_ssize_t _parent_of(list parents, Py_ssize_t node) except -2:
    """`parents[node]`: a walk index, or -1 above the root."""
    cdef Py_ssize_t parent = parents[_walk_index(node, len(parents))]
    if parent != -1:
        _walk_index(parent, len(parents))
    return parent


cdef tuple _best_group(
    list segments,
    list elements,
    list parents,
    Py_ssize_t start,
    Py_ssize_t end,
    Blocks* blocks,
    TagMemo* table,
    frozenset paragraph_tags,
):
    """`relevance._best_group` of one range: (possibility, members) of its best group."""
    cdef Py_ssize_t groups = 0
    cdef Py_ssize_t group
    cdef Py_ssize_t best_group = -1
    cdef Py_ssize_t i
    cdef Py_ssize_t node
    cdef Py_ssize_t parent
    cdef Py_ssize_t anchor
    cdef Py_ssize_t key
    cdef int64_t word_sum
    cdef int64_t key_sum
    cdef int64_t possibility
    cdef int64_t best = 0
    cdef bint linked
    cdef list members = []
    for i in range(start, end):
        if not blocks.words[i]:
            continue
        node = (<Segment?>segments[i]).node
        parent = _parent_of(parents, node)
        if not tag_in(_c_node_of(elements[node]), table, paragraph_tags) and (
            parent < 0 or not tag_in(_c_node_of(elements[parent]), table, paragraph_tags)
        ):
            continue
        # Siblings, or nodes whose parents are siblings, share a grandparent.
        anchor = _parent_of(parents, parent) if parent >= 0 else -1
        key = anchor if anchor >= 0 else node
        group = blocks.group_of[key]
        if group < 0:
            group = blocks.group_of[key] = groups
            blocks.group_keys[group] = key
            blocks.first_member[group] = i
            groups += 1
        else:
            blocks.next_member[blocks.last_member[group]] = i
        blocks.last_member[group] = i
        blocks.next_member[i] = -1
    # Groups in the order their first member came, as the Python dict iterates them.
    for group in range(groups):
        blocks.group_of[blocks.group_keys[group]] = -1
        linked = True
        word_sum = key_sum = 0
        i = blocks.first_member[group]
        while i >= 0:
            linked = linked and blocks.link_only[i]
            word_sum += blocks.words[i]
            key_sum += blocks.keys[i]
            i = blocks.next_member[i]
        if linked:
            continue
        possibility = word_sum * (key_sum + 1)
        if possibility > best:
            best = possibility
            best_group = group
    if best_group >= 0:
        i = blocks.first_member[best_group]
        while i >= 0:
            members.append(i)
            i = blocks.next_member[i]
    return best, members


def relevant_blocks(
    document,
    counts,
    keywords,
    bint cap_key_number,
    double title_similarity,
    double paragraph_possibility,
    frozenset paragraph_tags,
    count_words,
):
    """`relevance._relevant_blocks`: (headline blocks, best paragraph group)."""
    cdef list pieces = document.pieces
    cdef list segments = document.segments
    cdef list elements = document.node_elements
    cdef list parents = document.node_parents
    removed = document.removed_pieces
    cdef const int64_t[:, :] counted = counts
    cdef const int64_t[:, :] recounted
    cdef Py_ssize_t piece_count = len(pieces)
    cdef Py_ssize_t count = len(segments)
    cdef Py_ssize_t node_count = len(elements)
    cdef Py_ssize_t keyword_count = len(keywords)
    cdef Py_ssize_t i
    cdef Py_ssize_t index
    cdef Py_ssize_t first
    cdef Py_ssize_t last
    cdef Py_ssize_t gone
    cdef Py_ssize_t plain
    cdef int64_t key_number
    cdef bint linked
    cdef char* is_removed = NULL
    cdef Segment segment
    cdef TextPiece piece
    cdef Blocks blocks
    cdef TagMemo table
    cdef list partial = []
    cdef list partial_texts = []
    cdef list kept
    cdef list titles = []
    cdef tuple best
    cdef tuple fallback
    if counted.shape[0] != 2 or counted.shape[1] != count:
        raise ValueError("counts must have 2 rows and a column per segment")
    if len(parents) != node_count:
        raise ValueError("node_parents and node_elements differ in length")
    memset(&blocks, 0, sizeof(Blocks))
    memset(&table, 0, sizeof(TagMemo))
    try:
        # One slot more than needed everywhere: malloc(0) may answer NULL.
        is_removed = <char*>malloc(piece_count + 1)
        blocks.words = <int64_t*>malloc((count + 1) * sizeof(int64_t))
        blocks.keys = <int64_t*>malloc((count + 1) * sizeof(int64_t))
        blocks.link_only = <char*>malloc(count + 1)
        blocks.next_member = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        blocks.first_member = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        blocks.last_member = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        blocks.group_keys = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        blocks.group_of = <Py_ssize_t*>malloc((node_count + 1) * sizeof(Py_ssize_t))
        if (
            is_removed is NULL or blocks.words is NULL or blocks.keys is NULL
            or blocks.link_only is NULL or blocks.next_member is NULL
            or blocks.first_member is NULL or blocks.last_member is NULL
            or blocks.group_keys is NULL or blocks.group_of is NULL
        ):
            raise MemoryError()
        for index in range(piece_count):
            # Asked of `removed` as the Python loop asks it: equal keys (True, 1.0) count too.
            is_removed[index] = index in removed
        for index in range(node_count):
            blocks.group_of[index] = -1

        for i in range(count):
            segment = <Segment?>segments[i]
            first = segment.first_piece
            last = segment.last_piece
            if not 0 <= first <= last <= piece_count:
                raise IndexError("segment piece range out of range")
            blocks.words[i] = counted[0, i]
            blocks.keys[i] = counted[1, i]
            gone = 0
            plain = 0
            for index in range(first, last):
                gone += is_removed[index]
                plain += not (<TextPiece?>pieces[index]).in_link
            if not gone:
                blocks.link_only[i] = plain == 0
            elif gone == last - first:
                # Every piece was removed: no words, nothing plain.
                blocks.words[i] = blocks.keys[i] = 0
                blocks.link_only[i] = True
            else:
                # Blocks that lost some pieces are counted again on what is left.
                kept = []
                linked = True
                for index in range(first, last):
                    if not is_removed[index]:
                        piece = <TextPiece>pieces[index]
                        kept.append(piece.text)
                        linked = linked and (piece.in_link or piece.text.isspace())
                partial.append(i)
                partial_texts.append(" ".join(kept))
                blocks.link_only[i] = linked
        if partial:
            recounted = count_words(partial_texts, keywords)
            if recounted.shape[0] != 2 or recounted.shape[1] != len(partial):
                raise ValueError("count_words must give 2 rows and a column per text")
            for index in range(len(partial)):
                i = partial[index]
                blocks.words[i] = recounted[0, index]
                blocks.keys[i] = recounted[1, index]

        for i in range(count):
            if not blocks.words[i]:
                continue
            if keyword_count == 0:
                raise ZeroDivisionError("division by zero")  # as the Python test's would
            key_number = blocks.keys[i]
            if cap_key_number and key_number > keyword_count:
                key_number = keyword_count
            # Exact integers well below 2**53 divide as Python's int division rounds them.
            if (
                <double>(key_number * key_number) / <double>(blocks.words[i] * keyword_count)
                > title_similarity
            ):
                titles.append(i)

        if titles:
            best = (0, [])
            for index in range(len(titles)):
                first = <Py_ssize_t>titles[index] + 1
                last = titles[index + 1] if index + 1 < len(titles) else count
                found = _best_group(
                    segments, elements, parents, first, last, &blocks, &table, paragraph_tags
                )
                if <int64_t>found[0] > <int64_t>best[0]:
                    best = found
            last = titles[0]
        else:
            best = _best_group(
                segments, elements, parents, 0, count, &blocks, &table, paragraph_tags
            )
            last = 0
        if <double><int64_t>best[0] <= paragraph_possibility and last > 0:
            fallback = _best_group(
                segments, elements, parents, 0, last, &blocks, &table, paragraph_tags
            )
            if <int64_t>fallback[0] > <int64_t>best[0]:
                best = fallback
        return titles, best[1]
    finally:
        free(is_removed)
        free(blocks.words)
        free(blocks.keys)
        free(blocks.link_only)
        free(blocks.next_member)
        free(blocks.first_member)
        free(blocks.last_member)
        free(blocks.group_keys)
        free(blocks.group_of)
