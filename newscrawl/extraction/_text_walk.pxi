# Included by _node_walk.pyx: the text walk (`document._index_text`) and `joined_text`.

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


