# Included by _node_walk.pyx: `block_features._ancestor_flags`, the class/id hint flags of each
# walked element and its ancestors, with a memo of the marker values met.


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


@cython.final
cdef class FlagMemo:
    """What `ancestor_flags` learnt of one page, kept between its calls on that page.

    The flags of every element climbed so far and of every class or id value met: the block
    features climb from every block, and the container rules then ask for a few containers,
    which are those blocks' ancestors. Valid while the page's tree stays as it was walked (the
    memo points into its attribute values); `block_features.ancestor_flags` keeps one per
    Document.
    """

    cdef long* known
    cdef Py_ssize_t count
    cdef TagMemo table
    cdef MarkerMemo memo
    cdef dict value_flags

    def __cinit__(self, Py_ssize_t count):
        cdef Py_ssize_t node
        memset(&self.table, 0, sizeof(TagMemo))
        memset(&self.memo, 0, sizeof(MarkerMemo))
        self.value_flags = {}
        self.count = count
        self.known = <long*>malloc(max(count, 1) * sizeof(long))
        if self.known is NULL:
            raise MemoryError()
        for node in range(count):
            self.known[node] = -1
        _grow_memo(&self.memo)

    def __dealloc__(self):
        free(self.known)
        free(self.memo.entries)


@cython.boundscheck(True)
def ancestor_flags(
    list elements, list parents, list nodes, dict tag_flags, marker_flags, FlagMemo memo=None
):
    """`block_features._ancestor_flags` over a Document's `node_elements` and `node_parents`.

    `marker_flags` must leave the tree as it is: the memo points into its attribute values.
    `memo`, made for these `parents` (`FlagMemo(len(parents))`), carries what earlier calls on
    the same page learnt; without it, each call starts afresh.
    """
    cdef Py_ssize_t count = len(parents)
    if memo is None:
        memo = FlagMemo(count)
    elif memo.count != count:
        raise ValueError("the memo was made for another page")
    cdef Py_ssize_t chain_size
    cdef Py_ssize_t node
    cdef Py_ssize_t step
    cdef long inherited
    cdef long flags
    cdef long* known = memo.known
    cdef Py_ssize_t* chain = NULL
    cdef xmlNode* c_node
    cdef list found = []
    cdef bint in_place
    try:
        chain = <Py_ssize_t*>malloc(max(count, 1) * sizeof(Py_ssize_t))
        if chain is NULL:
            raise MemoryError()
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
                in_place = c_node.doc is not NULL and not declares_attributes(c_node.doc)
                flags = inherited | _tag_value(c_node, &memo.table, tag_flags)
                flags |= _marker_bits(
                    c_node, "class", in_place, &memo.memo, memo.value_flags, marker_flags
                )
                flags |= _marker_bits(
                    c_node, "id", in_place, &memo.memo, memo.value_flags, marker_flags
                )
                known[step] = inherited = flags
            found.append(inherited)
        return found
    finally:
        free(chain)


cdef inline long _known(long* known, Py_ssize_t count, Py_ssize_t node) except? -2:
    """`known[node]` with the Python list's bounds check."""
    if node >= count:
        raise IndexError("list index out of range")
    return known[node]


cdef inline bint _starts_with(const unsigned char* text, const char* stem) noexcept nogil:
    """Whether `text` starts with the lower-case ASCII `stem`, ASCII case ignored."""
    while stem[0]:
        # `| 0x20` lower-cases A-Z and maps nothing else onto a-z (NUL ends the text: no match).
        if (text[0] | 0x20) != <unsigned char>stem[0]:
            return False
        text += 1
        stem += 1
    return True


cdef bint _may_name_body(xmlAttr* attribute) noexcept nogil:
    """Whether a class or id value may hold a body name (`container_fill.BODY_NAMES`, each of
    which starts with "entry", "post", "article" or "story"): it holds one of those stems, ASCII
    case ignored, or it is made of several nodes (entities), which are not read here."""
    cdef xmlNode* child = attribute.children
    cdef const unsigned char* text
    cdef unsigned char first
    if child is NULL:
        return False  # `<div class>`: the value is ""
    if child.next is not NULL or child.type != tree.XML_TEXT_NODE or child.content is NULL:
        return True
    text = <const unsigned char*>child.content
    while text[0]:
        first = text[0] | 0x20
        if (
            (first == c'e' and _starts_with(text, "entry"))
            or (first == c'p' and _starts_with(text, "post"))
            or (first == c'a' and _starts_with(text, "article"))
            or (first == c's' and _starts_with(text, "story"))
        ):
            return True
        text += 1
    return False


cdef bint _may_be_named_body(xmlNode* c_node) noexcept nogil:
    """Whether `container_fill.named_body` may take the element: it has an `itemprop`, or a
    class or id that may hold a body name."""
    cdef xmlAttr* attribute = c_node.properties
    cdef const char* name
    while attribute is not NULL:
        if attribute.ns is NULL:
            name = <const char*>attribute.name
            if strcmp(name, "itemprop") == 0:
                return True
            if (strcmp(name, "class") == 0 or strcmp(name, "id") == 0) and _may_name_body(
                attribute
            ):
                return True
        attribute = attribute.next
    return False


@cython.boundscheck(True)
def named_body_candidates(list elements, list parents, list nodes, Py_ssize_t depth):
    """The walked elements `container_fill.named_body` asks, in walk order, fewer: of `nodes`
    (the blocks) and their ancestors up to `depth` levels above, only those that may carry a
    body name (`_may_be_named_body`). None when the page's DTDs declare attributes, whose
    defaults `element.get` reports and the node does not hold."""
    cdef Py_ssize_t count = len(parents)
    cdef Py_ssize_t node
    cdef Py_ssize_t budget
    cdef signed char* reach = NULL
    cdef xmlNode* c_node
    cdef list found = []
    if len(elements) != count:
        raise ValueError("elements and parents differ in length")
    if not 0 <= depth < 127:
        raise ValueError("depth out of range")
    if count == 0:
        return found
    c_node = require_element(elements[0])._c_node
    if c_node.doc is NULL or declares_attributes(c_node.doc):
        return None
    try:
        # Per element, the most levels left to climb above it when reached (-1: not reached);
        # a climb stops where an earlier one had as many left.
        reach = <signed char*>malloc(count)
        if reach is NULL:
            raise MemoryError()
        memset(reach, -1, count)
        for item in nodes:
            node = item
            budget = depth
            while budget >= 0 and node >= 0:
                if node >= count:
                    raise IndexError("list index out of range")
                if reach[node] >= budget:
                    break
                reach[node] = <signed char>budget
                node = parents[node]
                budget -= 1
        for node in range(count):
            if reach[node] >= 0:
                c_node = require_element(elements[node])._c_node
                if _may_be_named_body(c_node):
                    found.append(node)
        return found
    finally:
        free(reach)
