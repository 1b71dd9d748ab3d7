# Included by _static_keys.pyx: `page_keys` (the keys read straight from a parsed tree, for
# learning), `blake2b64`, and the keys' supports and owned pieces.


cdef enum:
    # `_put_run` results.
    RUN_OK = 0
    RUN_INVALID = 1


cdef int _put_run(Buffer* buffer, const unsigned char* text, bint normalise, int* state) except -1:
    """`_put_text` over a libxml2 text node's UTF-8; RUN_INVALID if it is not valid UTF-8."""
    cdef size_t length = strlen(<const char*>text)
    cdef size_t index = 0
    cdef size_t width
    cdef size_t position
    cdef unsigned int ch
    cdef unsigned char c
    cdef bint space
    cdef bint decimal
    cdef int current = state[0]
    _reserve(buffer, length + 2)
    while index < length:
        c = text[index]
        if c < 0x80:
            ch = c
            width = 1
            space = is_ascii_space(c)
            decimal = 48 <= c <= 57
        else:
            # Strict UTF-8, as Python decodes it: no overlong forms, no surrogates.
            if 0xC2 <= c <= 0xDF:
                width = 2
                ch = c & 0x1F
            elif 0xE0 <= c <= 0xEF:
                width = 3
                ch = c & 0x0F
            elif 0xF0 <= c <= 0xF4:
                width = 4
                ch = c & 0x07
            else:
                return RUN_INVALID
            if index + width > length:
                return RUN_INVALID
            for position in range(1, width):
                if text[index + position] & 0xC0 != 0x80:
                    return RUN_INVALID
                ch = (ch << 6) | (text[index + position] & 0x3F)
            if (
                (width == 3 and (ch < 0x800 or 0xD800 <= ch <= 0xDFFF))
                or (width == 4 and (ch < 0x10000 or ch > 0x10FFFF))
            ):
                return RUN_INVALID
            space = Py_UNICODE_ISSPACE(<Py_UCS4>ch)
            decimal = Py_UNICODE_ISDECIMAL(<Py_UCS4>ch)
        if space:
            if current:
                current = 2
        else:
            if current == 2:
                buffer.data[buffer.size] = c' '
                buffer.size += 1
            if normalise and decimal:
                if current != 3:
                    buffer.data[buffer.size] = c'0'
                    buffer.size += 1
                    current = 3
            else:
                _put(buffer, text + index, width)
                current = 1
        index += width
    state[0] = current
    return RUN_OK


cdef inline bint _is_text(xmlNode* c_node) noexcept nogil:
    """Text that lxml joins into `.text` and `.tail` runs."""
    return c_node.type == tree.XML_TEXT_NODE or c_node.type == tree.XML_CDATA_SECTION_NODE


cdef inline bint _is_xinclude(xmlNode* c_node) noexcept nogil:
    """XInclude markers, which lxml's text runs step over."""
    return c_node.type == tree.XML_XINCLUDE_START or c_node.type == tree.XML_XINCLUDE_END


cdef int _put_own_text(Buffer* buffer, xmlNode* c_node, bint normalise, int* state) except -1:
    """Append `c_node`'s own text: its `.text` and its walked children's tails, as pieces.

    RUN_INVALID when the walk would not take the page as it is (an entity reference, which
    iterwalk yields as a node, or text that is not UTF-8).
    """
    cdef xmlNode* child = c_node.children
    # Whether the text nodes met now extend a run (`.text` first, then each child's tail).
    cdef bint running = True
    cdef bint started = False
    while child is not NULL:
        if _is_text(child):
            if running and child.content is not NULL:
                if not started:
                    if state[0]:
                        # " ".join(pieces): a space separates this piece from the one before.
                        state[0] = 2
                    started = True
                if _put_run(buffer, <const unsigned char*>child.content, normalise, state):
                    return RUN_INVALID
        elif child.type == tree.XML_ELEMENT_NODE:
            running = True
            started = False
        elif child.type == tree.XML_ENTITY_REF_NODE:
            return RUN_INVALID
        elif not _is_xinclude(child):
            # Text after a comment or processing instruction is no element's text or tail.
            running = False
        child = child.next
    return RUN_OK


cdef int _own_text_state(xmlNode* c_node) noexcept nogil:
    """0 when `c_node` has no own text but ASCII blanks, 1 when it may, RUN_INVALID-like -1.

    Most elements hold only layout whitespace: this check spares rendering their prefix.
    """
    cdef xmlNode* child = c_node.children
    cdef bint running = True
    cdef int found = 0
    cdef const unsigned char* text
    while child is not NULL:
        if _is_text(child):
            if running and not found and child.content is not NULL:
                text = <const unsigned char*>child.content
                while text[0]:
                    if text[0] >= 0x80 or not is_ascii_space(text[0]):
                        found = 1
                        break
                    text += 1
        elif child.type == tree.XML_ELEMENT_NODE:
            running = True
        elif child.type == tree.XML_ENTITY_REF_NODE:
            return -1
        elif not _is_xinclude(child):
            running = False
        child = child.next
    return found


def page_keys(root, skipped_tags, bint normalise, tuple url_names, prefix_of):
    """The keys `node_keys` gives for `parse_document`'s pieces, straight from the tree.

    In document order rather than first-piece order (learning only counts them); None when
    the compiled walk in `_node_walk` would decline the tree, so the caller walks it instead.
    """
    cdef cetree._Element element = require_element(root)
    cdef cetree._Document doc = element._doc
    cdef xmlNode* c_top = element._c_node
    cdef xmlNode* c_node = c_top
    cdef xmlNode* c_next
    cdef TagMemo table
    cdef Buffer buffer
    cdef Names names
    cdef int state
    cdef bint skipped
    cdef int own
    cdef bytes prefix
    cdef list keys = []
    if c_top.type != tree.XML_ELEMENT_NODE:
        return None
    _set_names(&names, url_names)
    memset(&table, 0, sizeof(TagMemo))
    buffer.data = NULL
    buffer.size = 0
    buffer.capacity = 0
    try:
        while True:
            skipped = tag_in(c_node, &table, skipped_tags)
            own = _own_text_state(c_node) if not skipped else 0
            if own < 0:
                return None
            if own:
                buffer.size = 0
                if not _render_prefix(&buffer, c_node, normalise, &names):
                    prefix = (<str?>prefix_of(cetree.elementFactory(doc, c_node))).encode(
                        "utf-8", "replace"
                    )
                    _reserve(&buffer, <size_t>len(prefix))
                    _put(&buffer, <const unsigned char*>PyBytes_AS_STRING(prefix), len(prefix))
                state = 0
                if _put_own_text(&buffer, c_node, normalise, &state):
                    return None
                if state:
                    keys.append(nc_blake2b64(buffer.data, buffer.size))
            # Depth first, in document order, over elements; skipped subtrees are not entered.
            c_next = NULL if skipped else _first_element(c_node.children)
            while c_next is NULL:
                if c_node == c_top:
                    return keys
                c_next = _first_element(c_node.next)
                if c_next is NULL:
                    c_node = c_node.parent
            c_node = c_next
    finally:
        free(buffer.data)


cdef inline xmlNode* _first_element(xmlNode* c_node) noexcept nogil:
    """`c_node` or the first element after it among its siblings."""
    while c_node is not NULL and c_node.type != tree.XML_ELEMENT_NODE:
        c_node = c_node.next
    return c_node


def blake2b64(bytes data):
    """`static_noise.hash_key` of bytes: BLAKE2b with an 8-byte digest, read little-endian."""
    return nc_blake2b64(<const unsigned char*>PyBytes_AS_STRING(data), len(data))


def node_supports(list keys, dict counts, Py_ssize_t page_count):
    """`static_noise.node_supports`: each key's count in the template over its page count."""
    cdef Py_ssize_t index
    cdef Py_ssize_t size = len(keys)
    cdef list supports = [0.0] * size
    cdef object found
    if not page_count:
        return supports
    for index in range(size):
        found = counts.get(keys[index], 0)
        supports[index] = found / page_count
    return supports


def owned_pieces(list owners, list supports, double threshold):
    """`static_noise.owned_pieces`: the pieces whose owner's support reaches the threshold."""
    cdef Py_ssize_t index
    cdef Py_ssize_t owner
    cdef Py_ssize_t size = len(supports)
    cdef list found = []
    for index in range(len(owners)):
        owner = owners[index]
        if not 0 <= owner < size:
            raise IndexError("list index out of range")
        if <double>supports[owner] >= threshold:
            found.append(index)
    return found
