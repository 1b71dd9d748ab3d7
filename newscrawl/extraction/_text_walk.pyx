# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twins of the extraction's per-node loops, reading libxml2's nodes directly."""

# `index_text` is `document._index_text`, `ancestor_flags` is `block_features._ancestor_flags`.
# Element proxies come from lxml's public C API (`elementFactory`), so what they return is
# indistinguishable from the Python loops' results: same values, same element objects.
# Only struct fields are read from libxml2 (headers only); every function called is lxml's,
# resolved at import by `import_lxml__etree`, so nothing links against libxml2 itself.

from collections.abc import Mapping

cimport cython
from cpython.unicode cimport (
    Py_UNICODE_ISSPACE,
    PyUnicode_1BYTE_KIND,
    PyUnicode_4BYTE_KIND,
    PyUnicode_DATA,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
    PyUnicode_READ,
)
from libc.stdlib cimport free, malloc, realloc
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memset, strcmp, strlen

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode
from newscrawl.extraction._libxml_nodes cimport (
    TagMemo,
    check_lxml_major,
    is_ascii_space,
    memo_slot,
    require_element,
    first_walked_child,
    next_walked_sibling,
    text_run_state,
)


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)
    object PyUnicode_DecodeUTF8(const char* data, Py_ssize_t size, const char* errors)
    object PyUnicode_FromKindAndData(int kind, const void* data, Py_ssize_t size)

cetree.import_lxml__etree()

# The lxml this module was compiled against (see `_libxml_nodes.check_lxml_major`).
BUILT_FOR_LXML: str = check_lxml_major("_text_walk")

cdef enum:
    KIND_SKIPPED = 1
    KIND_BLOCK = 2
    KIND_ANCHOR = 4


cdef struct IntStack:
    Py_ssize_t* items
    Py_ssize_t size
    Py_ssize_t capacity


cdef int _push(IntStack* stack, Py_ssize_t value) except -1:
    """Append to a growable C array."""
    cdef Py_ssize_t capacity
    cdef Py_ssize_t* items
    if stack.size == stack.capacity:
        capacity = stack.capacity * 2 if stack.capacity else 64
        items = <Py_ssize_t*>realloc(stack.items, capacity * sizeof(Py_ssize_t))
        if items is NULL:
            raise MemoryError()
        stack.items = items
        stack.capacity = capacity
    stack.items[stack.size] = value
    stack.size += 1
    return 0


cdef long _tag_value(xmlNode* c_node, TagMemo* memo, dict values) except? -1:
    """`values.get(element.tag, 0)`, looked up once per distinct tag name of the page."""
    cdef long* kept = NULL
    cdef bint known
    cdef long value
    if cetree._getNs(c_node) is NULL:
        kept = memo_slot(memo, c_node.name, &known)
        if kept is not NULL and known:
            return kept[0]
    value = values.get(cetree.namespacedName(c_node), 0)
    if kept is not NULL:
        kept[0] = value
    return value


cdef dict _tag_kinds(skipped_tags, block_tags):
    """KIND_* bits per tag name: the walk's tests of `element.tag`, as one lookup."""
    cdef dict kinds = {}
    for tag in skipped_tags:
        kinds[tag] = kinds.get(tag, 0) | KIND_SKIPPED
    for tag in block_tags:
        kinds[tag] = kinds.get(tag, 0) | KIND_BLOCK
    kinds["a"] = kinds.get("a", 0) | KIND_ANCHOR
    return kinds




cdef inline bint _visible(text) except -1:
    """The Python walk's test: `text and not text.isspace()`."""
    return bool(text) and not text.isspace()


cdef bint _has_href(xmlNode* c_node) except -1:
    """`element.get("href") is not None`, reading the attribute list directly."""
    cdef xmlAttr* attribute = c_node.properties
    while attribute is not NULL:
        if attribute.ns is NULL and _is_href(attribute.name):
            return True
        attribute = attribute.next
    # Not set on the element, but a DTD default could supply it: ask lxml's `get`.
    return cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"href") is not None


cdef inline bint _is_href(const_xmlChar* name) noexcept nogil:
    """Whether a C attribute name is exactly `href`."""
    return (
        name[0] == c'h' and name[1] == c'r' and name[2] == c'e' and name[3] == c'f'
        and name[4] == 0
    )





@cython.final
cdef class PieceRanges:
    """`Document.piece_range` from the compiled walk: the Python walk's dict, as a view.

    Same keys in the same order, same values; it keeps each element's walk index and reads the
    range from the node arrays when asked, instead of holding a tuple per text-bearing element
    (a quarter of the objects a page left to the garbage collector).
    """

    cdef dict index_of
    cdef list starts
    cdef list ends

    def __init__(self, dict index_of, list starts, list ends):
        self.index_of = index_of
        self.starts = starts
        self.ends = ends

    def __getitem__(self, element):
        cdef Py_ssize_t node = self.index_of[element]
        return (self.starts[node], self.ends[node])

    def __contains__(self, element):
        return element in self.index_of

    def __iter__(self):
        return iter(self.index_of)

    def __len__(self):
        return len(self.index_of)

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    def get(self, element, default=None):
        node = self.index_of.get(element)
        return default if node is None else (self.starts[node], self.ends[node])

    def keys(self):
        return self.index_of.keys()

    def values(self):
        return [(self.starts[node], self.ends[node]) for node in self.index_of.values()]

    def items(self):
        return [
            (element, (self.starts[node], self.ends[node]))
            for element, node in self.index_of.items()
        ]


Mapping.register(PieceRanges)


@cython.no_gc
@cython.final
cdef class TextPiece:
    """`document.TextPiece` compiled: one run of visible text, the element whose own text it is.

    Made by the walk without a Python call, and left out of the garbage collector's passes:
    its fields are a string, an lxml element and numbers, which never lead back to a piece.
    """

    def __init__(self, str text, element, bint in_link, Py_ssize_t segment):
        self.text = text
        self.element = element
        self.in_link = in_link
        self.segment = segment

    def __repr__(self):
        return (
            f"TextPiece(text={self.text!r}, element={self.element!r}, "
            f"in_link={self.in_link!r}, segment={self.segment!r})"
        )


@cython.no_gc
@cython.final
cdef class Segment:
    """`document.Segment` compiled: a text block, made and collected as `TextPiece` is."""

    def __init__(
        self, Py_ssize_t index, block, Py_ssize_t first_piece, Py_ssize_t last_piece,
        Py_ssize_t node, str text="",
    ):
        self.index = index
        self.block = block
        self.first_piece = first_piece
        self.last_piece = last_piece
        self.node = node
        self.text = text

    def __repr__(self):
        return (
            f"Segment(index={self.index!r}, block={self.block!r}, "
            f"first_piece={self.first_piece!r}, last_piece={self.last_piece!r}, "
            f"node={self.node!r}, text={self.text!r})"
        )


cdef inline bint _has_text(xmlNode* c_node) noexcept nogil:
    """Whether the text run from `c_node` on has a character: blank when `text_run_state` is 0."""
    while c_node is not NULL:
        if c_node.type == tree.XML_TEXT_NODE or c_node.type == tree.XML_CDATA_SECTION_NODE:
            if c_node.content is not NULL and c_node.content[0] != 0:
                return True
        elif c_node.type != tree.XML_XINCLUDE_START and c_node.type != tree.XML_XINCLUDE_END:
            break
        c_node = c_node.next
    return False


cdef inline void _keep_gap(TextPiece piece):
    """`document._keep_gap`: end the piece with a space for the blank text skipped after it."""
    cdef str text = piece.text
    if not Py_UNICODE_ISSPACE(text[PyUnicode_GET_LENGTH(text) - 1]):
        piece.text = text + " "


cdef inline TextPiece _new_piece(str text, element, bint in_link, Py_ssize_t segment):
    """`TextPiece(text, element, in_link, segment)`, without the Python call."""
    cdef TextPiece piece = TextPiece.__new__(TextPiece)
    piece.text = text
    piece.element = element
    piece.in_link = in_link
    piece.segment = segment
    return piece


cdef Segment _open_segment(
    IntStack* block_stack, list node_elements, Py_ssize_t index, Py_ssize_t first_piece
):
    """A new segment of the innermost open block, starting at `first_piece`."""
    if block_stack.size == 0:
        raise IndexError("pop from empty list")
    cdef Py_ssize_t block_node = block_stack.items[block_stack.size - 1]
    cdef Segment segment = Segment.__new__(Segment)
    segment.index = index
    segment.block = node_elements[block_node]
    segment.first_piece = first_piece
    segment.last_piece = 0
    segment.node = block_node
    segment.text = ""
    return segment


def index_text(document, skipped_tags, block_tags):
    """Fill `document` as `_index_text` does; False (document untouched) when it cannot."""
    # Like iterwalk it passes over comments and processing instructions (their tails are not
    # text to it either). It declines trees holding entity references, which iterwalk yields
    # as `_Entity` nodes: libxml2's HTML parser makes none, so in practice it never declines.
    cdef cetree._Element root = require_element(document.tree)
    cdef cetree._Document doc = root._doc
    cdef xmlNode* c_node = root._c_node
    cdef xmlNode* c_child
    cdef TagMemo table
    cdef IntStack parents
    cdef IntStack starts
    cdef IntStack ends
    cdef IntStack node_stack
    cdef IntStack block_stack
    cdef IntStack link_stack
    cdef Py_ssize_t parent = -1
    cdef Py_ssize_t node_count = 0
    cdef Py_ssize_t piece_count = 0
    cdef Py_ssize_t segment_count = 0
    cdef Py_ssize_t start
    cdef int kind
    cdef int state
    cdef bint descend
    # Blank text between the open segment's last piece and the next: see `_index_text`.
    cdef bint gap = False
    cdef list pieces = []
    cdef list segments = []
    cdef dict index_of = {}  # text-bearing element -> walk index, for `PieceRanges`
    cdef list node_elements = []
    cdef list texts
    cdef cetree._Element element
    cdef Segment current = None
    memset(&table, 0, sizeof(TagMemo))
    cdef dict kinds = _tag_kinds(skipped_tags, block_tags)
    memset(&parents, 0, sizeof(IntStack))
    memset(&starts, 0, sizeof(IntStack))
    memset(&ends, 0, sizeof(IntStack))
    memset(&node_stack, 0, sizeof(IntStack))
    memset(&block_stack, 0, sizeof(IntStack))
    memset(&link_stack, 0, sizeof(IntStack))
    try:
        while True:
            # Start event for c_node.
            if c_node.type != tree.XML_ELEMENT_NODE:  # an entity reference
                return False
            element = cetree.elementFactory(doc, c_node)
            node_elements.append(element)
            _push(&parents, parent)
            _push(&starts, piece_count)
            _push(&ends, 0)
            _push(&node_stack, parent)
            parent = node_count
            node_count += 1
            kind = _tag_value(c_node, &table, kinds)
            descend = not (kind & KIND_SKIPPED)
            if descend:
                if kind & KIND_ANCHOR and _has_href(c_node):
                    _push(&link_stack, <Py_ssize_t>c_node)
                if kind & KIND_BLOCK:
                    if current is not None:
                        current.last_piece = piece_count
                        segments.append(current)
                        segment_count += 1
                        current = None
                        gap = False
                    _push(&block_stack, parent)
                state = text_run_state(c_node.children)
                if state:
                    text = cetree.textOf(c_node)
                    if state == 1 or _visible(text):
                        if current is None:
                            current = _open_segment(
                                &block_stack, node_elements, segment_count, piece_count
                            )
                        elif gap:
                            _keep_gap(<TextPiece>pieces[piece_count - 1])
                        gap = False
                        pieces.append(
                            _new_piece(text, element, link_stack.size > 0, current.index)
                        )
                        piece_count += 1
                    elif current is not None:
                        gap = True
                elif current is not None and _has_text(c_node.children):
                    gap = True
            c_child = first_walked_child(c_node) if descend else NULL
            while c_child is NULL:
                # End event for c_node.
                kind = _tag_value(c_node, &table, kinds)
                if kind & KIND_BLOCK:
                    if current is not None:
                        current.last_piece = piece_count
                        segments.append(current)
                        segment_count += 1
                        current = None
                        gap = False
                    if block_stack.size == 0:
                        raise IndexError("pop from empty list")
                    block_stack.size -= 1
                elif (
                    link_stack.size
                    and link_stack.items[link_stack.size - 1] == <Py_ssize_t>c_node
                ):
                    link_stack.size -= 1
                start = starts.items[parent]
                ends.items[parent] = piece_count
                if start != piece_count:
                    index_of[node_elements[parent]] = parent
                node_stack.size -= 1
                parent = node_stack.items[node_stack.size]
                if parent < 0:
                    break
                state = text_run_state(c_node.next)
                if state:
                    text = cetree.tailOf(c_node)
                    if state == 1 or _visible(text):
                        if current is None:
                            current = _open_segment(
                                &block_stack, node_elements, segment_count, piece_count
                            )
                        elif gap:
                            _keep_gap(<TextPiece>pieces[piece_count - 1])
                        gap = False
                        pieces.append(
                            _new_piece(
                                text, node_elements[parent], link_stack.size > 0, current.index
                            )
                        )
                        piece_count += 1
                    elif current is not None:
                        gap = True
                elif current is not None and _has_text(c_node.next):
                    gap = True
                c_child = next_walked_sibling(c_node)
                if c_child is NULL:
                    c_node = c_node.parent
            if c_child is NULL:
                break
            c_node = c_child
        if current is not None:
            current.last_piece = piece_count
            segments.append(current)
        texts = [(<TextPiece>piece).text for piece in pieces]
        for finished in segments:
            (<Segment>finished).text = _joined_text(
                texts, (<Segment>finished).first_piece, (<Segment>finished).last_piece
            )
        document.pieces = pieces
        document.segments = segments
        document.node_elements = node_elements
        document.node_parents = [parents.items[index] for index in range(node_count)]
        document.node_starts = [starts.items[index] for index in range(node_count)]
        document.node_ends = [ends.items[index] for index in range(node_count)]
        document.piece_range = PieceRanges(index_of, document.node_starts, document.node_ends)
        return True
    finally:
        free(parents.items)
        free(starts.items)
        free(ends.items)
        free(node_stack.items)
        free(block_stack.items)
        free(link_stack.items)


def joined_text(list texts, Py_ssize_t first, Py_ssize_t last):
    """`document.joined_text`: `" ".join("".join(texts[first:last]).split())`.

    A range that slicing would clamp (past the end, or first after last) is refused instead.
    """
    if not 0 <= first <= last <= len(texts):
        raise IndexError("piece range out of bounds")
    return _joined_text(texts, first, last)


cdef str _joined_text(list texts, Py_ssize_t first, Py_ssize_t last):
    """`joined_text`, written once into a buffer instead of a string per word.

    Whitespace is what `str.split()` splits on (`Py_UNICODE_ISSPACE`); pieces are joined as
    they are, so only whitespace in them separates words.
    """
    cdef Py_ssize_t capacity = 0
    cdef Py_ssize_t index
    cdef Py_ssize_t position
    cdef Py_ssize_t length
    cdef Py_ssize_t size = 0
    cdef bint ascii = True
    cdef bint pending = False
    cdef int kind
    cdef const void* data
    cdef const unsigned char* narrow_in
    cdef unsigned char* narrow = NULL
    cdef Py_UCS4* wide = NULL
    cdef Py_UCS4 ch
    cdef object text
    for index in range(first, last):
        text = texts[index]
        if not isinstance(text, str):
            raise TypeError(f"piece texts must be str, not {type(text).__name__}")
        capacity += PyUnicode_GET_LENGTH(text)
        ascii = ascii and PyUnicode_IS_ASCII(text)
    try:
        if ascii:
            # Most blocks: one byte per character in and out, no Unicode database.
            narrow = <unsigned char*>malloc(capacity + 1)
            if narrow is NULL:
                raise MemoryError()
            for index in range(first, last):
                text = texts[index]
                narrow_in = <const unsigned char*>PyUnicode_DATA(text)
                length = PyUnicode_GET_LENGTH(text)
                for position in range(length):
                    if is_ascii_space(narrow_in[position]):
                        pending = size > 0
                        continue
                    if pending:
                        narrow[size] = 32
                        size += 1
                        pending = False
                    narrow[size] = narrow_in[position]
                    size += 1
            return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, narrow, size)
        # Written as UCS-4; the new string takes the narrowest storage its characters allow.
        wide = <Py_UCS4*>malloc((capacity + 1) * sizeof(Py_UCS4))
        if wide is NULL:
            raise MemoryError()
        for index in range(first, last):
            text = texts[index]
            kind = PyUnicode_KIND(text)
            data = PyUnicode_DATA(text)
            length = PyUnicode_GET_LENGTH(text)
            for position in range(length):
                ch = PyUnicode_READ(kind, data, position)
                if Py_UNICODE_ISSPACE(ch):
                    pending = size > 0
                    continue
                if pending:
                    wide[size] = 32
                    size += 1
                    pending = False
                wide[size] = ch
                size += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, wide, size)
    finally:
        free(narrow)
        free(wide)


cdef struct MarkerEntry:
    const unsigned char* value  # NULL: an empty slot
    size_t length
    uint64_t hash
    long flags


cdef struct MarkerMemo:
    # `marker_flags` of each distinct class or id value met, keyed by its bytes in the tree:
    # values repeat within a page, and reading them in place makes no string per element.
    MarkerEntry* entries
    size_t mask  # slot count - 1 (a power of two, kept at least twice the entries)
    size_t size


cdef int _grow_memo(MarkerMemo* memo) except -1:
    """Double the table (or make the first one), rehashing its entries."""
    cdef size_t capacity = (memo.mask + 1) * 2 if memo.entries is not NULL else 64
    cdef MarkerEntry* entries = <MarkerEntry*>malloc(capacity * sizeof(MarkerEntry))
    cdef size_t index
    cdef size_t slot
    if entries is NULL:
        raise MemoryError()
    memset(entries, 0, capacity * sizeof(MarkerEntry))
    if memo.entries is not NULL:
        for index in range(memo.mask + 1):
            if memo.entries[index].value is not NULL:
                slot = memo.entries[index].hash & (capacity - 1)
                while entries[slot].value is not NULL:
                    slot = (slot + 1) & (capacity - 1)
                entries[slot] = memo.entries[index]
        free(memo.entries)
    memo.entries = entries
    memo.mask = capacity - 1
    return 0


cdef inline uint64_t _fnv1a(const unsigned char* value, size_t length) noexcept nogil:
    """FNV-1a of the bytes: a memo key, never stored beyond the call."""
    cdef uint64_t hash = 14695981039346656037ULL
    cdef size_t index
    for index in range(length):
        hash = (hash ^ value[index]) * 1099511628211ULL
    return hash


cdef long _value_bits(
    const unsigned char* value, MarkerMemo* memo, marker_flags
) except? -1:
    """`marker_flags` of a UTF-8 attribute value, looked up in the memo first."""
    cdef size_t length = strlen(<const char*>value)
    cdef uint64_t hash
    cdef size_t slot
    cdef MarkerEntry* entry
    if length == 0:
        return 0  # the Python climb skips empty values
    hash = _fnv1a(value, length)
    slot = hash & memo.mask
    while memo.entries[slot].value is not NULL:
        entry = &memo.entries[slot]
        if entry.hash == hash and entry.length == length and memcmp(entry.value, value, length) == 0:
            return entry.flags
        slot = (slot + 1) & memo.mask
    flags = marker_flags(PyUnicode_DecodeUTF8(<const char*>value, length, NULL))
    if (memo.size + 1) * 2 > memo.mask + 1:
        _grow_memo(memo)
        slot = hash & memo.mask
        while memo.entries[slot].value is not NULL:
            slot = (slot + 1) & memo.mask
    entry = &memo.entries[slot]
    entry.value = value
    entry.length = length
    entry.hash = hash
    entry.flags = flags
    memo.size += 1
    return entry.flags


cdef inline bint _declares_attributes(tree.xmlDoc* c_doc) noexcept nogil:
    """Whether the document's DTDs declare attributes, whose defaults `element.get` reports."""
    return (
        (c_doc.intSubset is not NULL and c_doc.intSubset.attributes is not NULL)
        or (c_doc.extSubset is not NULL and c_doc.extSubset.attributes is not NULL)
    )


cdef long _marker_bits(
    xmlNode* c_node, const char* name, bint in_place, MarkerMemo* memo, dict value_flags,
    marker_flags,
) except? -1:
    """`marker_flags(element.get(name))` memoised, 0 for an absent or empty value."""
    cdef xmlAttr* attribute
    cdef xmlNode* child
    if in_place:
        attribute = c_node.properties
        while attribute is not NULL:
            if attribute.ns is NULL and strcmp(<const char*>attribute.name, name) == 0:
                child = attribute.children
                if child is NULL:
                    return 0  # `<p class>`: the value is ""
                if (
                    child.next is NULL and child.type == tree.XML_TEXT_NODE
                    and child.content is not NULL
                ):
                    return _value_bits(<const unsigned char*>child.content, memo, marker_flags)
                break  # a value of several nodes (entities): lxml joins them
            attribute = attribute.next
        else:
            return 0  # absent, and no DTD could supply a default
    marker = cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>name)
    if not marker:
        return 0
    bits = value_flags.get(marker)
    if bits is None:
        bits = value_flags[marker] = marker_flags(marker)
    return bits


@cython.boundscheck(True)
def ancestor_flags(list elements, list parents, list nodes, dict tag_flags, marker_flags):
    """`block_features._ancestor_flags` over a Document's `node_elements` and `node_parents`.

    `marker_flags` must leave the tree as it is: the memo points into its attribute values.
    """
    cdef Py_ssize_t count = len(parents)
    cdef Py_ssize_t chain_size
    cdef Py_ssize_t node
    cdef Py_ssize_t step
    cdef long inherited
    cdef long flags
    cdef long* known = NULL
    cdef Py_ssize_t* chain = NULL
    cdef xmlNode* c_node
    cdef TagMemo table
    cdef MarkerMemo memo
    cdef dict value_flags = {}
    cdef list found = []
    cdef bint in_place
    memset(&table, 0, sizeof(TagMemo))
    memset(&memo, 0, sizeof(MarkerMemo))
    try:
        _grow_memo(&memo)
        known = <long*>malloc(max(count, 1) * sizeof(long))
        chain = <Py_ssize_t*>malloc(max(count, 1) * sizeof(Py_ssize_t))
        if known is NULL or chain is NULL:
            raise MemoryError()
        for node in range(count):
            known[node] = -1
        for item in nodes:
            node = item
            chain_size = 0
            while node >= 0 and _known(known, count, node) < 0:
                if chain_size == count:
                    # Only a cycle in `parents` climbs this far (the Python loop never ends).
                    raise ValueError("node_parents is not a tree")
                chain[chain_size] = node
                chain_size += 1
                node = parents[node]
            inherited = _known(known, count, node) if node >= 0 else 0
            while chain_size:
                chain_size -= 1
                step = chain[chain_size]
                c_node = require_element(elements[step])._c_node
                # Without attribute declarations, an attribute absent from the node is absent.
                in_place = c_node.doc is not NULL and not _declares_attributes(c_node.doc)
                flags = inherited | _tag_value(c_node, &table, tag_flags)
                flags |= _marker_bits(c_node, "class", in_place, &memo, value_flags, marker_flags)
                flags |= _marker_bits(c_node, "id", in_place, &memo, value_flags, marker_flags)
                known[step] = inherited = flags
            found.append(inherited)
        return found
    finally:
        free(known)
        free(chain)
        free(memo.entries)


cdef inline long _known(long* known, Py_ssize_t count, Py_ssize_t node) except? -2:
    """`known[node]` with the Python list's bounds check."""
    if node >= count:
        raise IndexError("list index out of range")
    return known[node]
