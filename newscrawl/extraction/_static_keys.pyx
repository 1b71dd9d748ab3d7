# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twins of the static-noise keying loop (`static_noise._python_keyed_nodes`)."""

# `node_keys` keys a Document's pieces; `page_keys` keys a parsed tree directly, for learning,
# where no Document is needed. Each text-bearing element's key (tag, sorted normalised
# attributes, own text, digit runs as "0") is built as UTF-8 in a C buffer and hashed with an
# inlined BLAKE2b-64, so the hashes are exactly `static_noise.hash_key` of the Python key.
# Why inlined: stored templates hold these hashes, so the function cannot change, and hashlib
# has no C API: a Python call per key (bytes, hash object, digest, int) would cost about as
# much as the rest of the keying. The tests compare it with hashlib over many lengths.
# Attributes are read from libxml2's nodes; anything the fast path is not sure to render like
# Python (non-ASCII names or values, namespaces, entity children, duplicate names) gets its
# prefix from the Python renderer.
# `page_keys`, the keys' supports and the owned pieces are in _page_keys.pxi, included at the end.

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.unicode cimport Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset, strlen

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlNode
from newscrawl.extraction._libxml_nodes cimport (
    TagMemo,
    check_lxml_major,
    is_ascii_space,
    require_element,
    tag_in,
)
from newscrawl.extraction._node_walk cimport TextPiece

cetree.import_lxml__etree()

# The lxml this module was compiled against (see `_libxml_nodes.check_lxml_major`).
BUILT_FOR_LXML: str = check_lxml_major("_static_keys")

cdef extern from *:
    """
    /* BLAKE2b (RFC 7693) with an 8-byte digest and no key: hashlib.blake2b(digest_size=8). */
    #include <stdint.h>
    #include <string.h>
    static const uint64_t nc_blake2b_iv[8] = {
        0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
        0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
        0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL
    };
    static const uint8_t nc_blake2b_sigma[12][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
        {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
        {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
        {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
        {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
        {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
        {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
        {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
        {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}
    };
    static inline uint64_t nc_rotr64(uint64_t w, unsigned c) {
        return (w >> c) | (w << (64 - c));
    }
    static inline uint64_t nc_load64(const uint8_t *p) {
        return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16)
            | ((uint64_t)p[3] << 24) | ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40)
            | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
    }
    #define NC_G(r, i, a, b, c, d) do { \\
        a = a + b + m[nc_blake2b_sigma[r][2 * i]]; d = nc_rotr64(d ^ a, 32); \\
        c = c + d; b = nc_rotr64(b ^ c, 24); \\
        a = a + b + m[nc_blake2b_sigma[r][2 * i + 1]]; d = nc_rotr64(d ^ a, 16); \\
        c = c + d; b = nc_rotr64(b ^ c, 63); \\
    } while (0)
    #define NC_ROUND(r) do { \\
        NC_G(r, 0, v[0], v[4], v[8], v[12]); NC_G(r, 1, v[1], v[5], v[9], v[13]); \\
        NC_G(r, 2, v[2], v[6], v[10], v[14]); NC_G(r, 3, v[3], v[7], v[11], v[15]); \\
        NC_G(r, 4, v[0], v[5], v[10], v[15]); NC_G(r, 5, v[1], v[6], v[11], v[12]); \\
        NC_G(r, 6, v[2], v[7], v[8], v[13]); NC_G(r, 7, v[3], v[4], v[9], v[14]); \\
    } while (0)
    static void nc_blake2b_compress(uint64_t h[8], const uint8_t *block, uint64_t t, int last) {
        uint64_t m[16], v[16];
        int i;
        for (i = 0; i < 16; i++) m[i] = nc_load64(block + 8 * i);
        for (i = 0; i < 8; i++) { v[i] = h[i]; v[i + 8] = nc_blake2b_iv[i]; }
        v[12] ^= t;
        if (last) v[14] = ~v[14];
        /* Unrolled, so that the message schedule indexes are constants. */
        NC_ROUND(0); NC_ROUND(1); NC_ROUND(2); NC_ROUND(3); NC_ROUND(4); NC_ROUND(5);
        NC_ROUND(6); NC_ROUND(7); NC_ROUND(8); NC_ROUND(9); NC_ROUND(10); NC_ROUND(11);
        for (i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
    }
    /* The digest's 8 bytes read little-endian: int.from_bytes(digest, "little"). */
    static uint64_t nc_blake2b64(const uint8_t *data, size_t length) {
        uint64_t h[8];
        uint8_t block[128];
        uint64_t t = 0;
        memcpy(h, nc_blake2b_iv, sizeof(h));
        h[0] ^= 0x01010008ULL;  /* digest length 8, no key, fanout 1, depth 1 */
        while (length > 128) {
            t += 128;
            nc_blake2b_compress(h, data, t, 0);
            data += 128;
            length -= 128;
        }
        memset(block, 0, sizeof(block));
        if (length) memcpy(block, data, length);
        t += length;
        nc_blake2b_compress(h, block, t, 1);
        return h[0];
    }
    """
    uint64_t nc_blake2b64(const unsigned char* data, size_t length) nogil

cdef enum:
    # More attributes than this on one element take the Python renderer.
    MAX_ATTRIBUTES = 64
    # At most this many URL attribute names (`static_noise._URL_ATTRIBUTES`).
    MAX_URL_NAMES = 16


cdef struct Buffer:
    unsigned char* data
    size_t size
    size_t capacity


cdef struct Names:
    const char* names[MAX_URL_NAMES]
    size_t lengths[MAX_URL_NAMES]
    Py_ssize_t count


cdef struct Attribute:
    const unsigned char* name
    const unsigned char* value
    size_t name_length
    size_t value_length


cdef int _reserve(Buffer* buffer, size_t extra) except -1:
    """Make room for `extra` more bytes."""
    cdef size_t capacity
    cdef unsigned char* data
    if buffer.size + extra <= buffer.capacity:
        return 0
    capacity = buffer.capacity * 2 if buffer.capacity else 1024
    while capacity < buffer.size + extra:
        capacity *= 2
    data = <unsigned char*>realloc(buffer.data, capacity)
    if data is NULL:
        raise MemoryError()
    buffer.data = data
    buffer.capacity = capacity
    return 0


cdef inline void _put(Buffer* buffer, const unsigned char* data, size_t length) noexcept nogil:
    """Append bytes already reserved."""
    memcpy(buffer.data + buffer.size, data, length)
    buffer.size += length


cdef inline bint _is_ascii(const unsigned char* text, size_t length) noexcept nogil:
    """Whether the bytes are all ASCII."""
    cdef size_t index
    for index in range(length):
        if text[index] >= 0x80:
            return False
    return True


cdef inline int _compare(Attribute* a, Attribute* b) noexcept nogil:
    """Python's order of (name, value) str pairs: for ASCII, byte order, shorter first on ties."""
    cdef size_t length = a.name_length if a.name_length < b.name_length else b.name_length
    cdef int found = memcmp(a.name, b.name, length)
    if found:
        return found
    if a.name_length != b.name_length:
        return -1 if a.name_length < b.name_length else 1
    length = a.value_length if a.value_length < b.value_length else b.value_length
    found = memcmp(a.value, b.value, length)
    if found:
        return found
    if a.value_length != b.value_length:
        return -1 if a.value_length < b.value_length else 1
    return 0


cdef bint _read_attributes(
    xmlNode* c_node, Attribute* attributes, Py_ssize_t* count
) noexcept nogil:
    """Fill `attributes` as `element.items()` would list them; False when unsure."""
    cdef xmlAttr* attribute = c_node.properties
    cdef xmlNode* child
    cdef Py_ssize_t found = 0
    cdef Py_ssize_t other
    while attribute is not NULL:
        if found == MAX_ATTRIBUTES or attribute.type != tree.XML_ATTRIBUTE_NODE:
            return False
        if attribute.ns is not NULL or attribute.name is NULL:
            return False
        child = attribute.children
        if child is NULL:
            # lxml reads a value-less attribute (`<a href>`) as "".
            attributes[found].value = <const unsigned char*>""
            attributes[found].value_length = 0
        elif child.next is NULL and child.type == tree.XML_TEXT_NODE and child.content is not NULL:
            attributes[found].value = <const unsigned char*>child.content
            attributes[found].value_length = strlen(<const char*>child.content)
        else:
            return False
        attributes[found].name = <const unsigned char*>attribute.name
        attributes[found].name_length = strlen(<const char*>attribute.name)
        if not _is_ascii(attributes[found].name, attributes[found].name_length):
            return False
        if not _is_ascii(attributes[found].value, attributes[found].value_length):
            return False
        for other in range(found):
            # lxml looks a value up by name: with duplicate names it would repeat the first.
            if (
                attributes[other].name_length == attributes[found].name_length
                and memcmp(
                    attributes[other].name, attributes[found].name, attributes[found].name_length
                ) == 0
            ):
                return False
        found += 1
        attribute = attribute.next
    count[0] = found
    return True


cdef void _sort(Attribute* attributes, Py_ssize_t count) noexcept nogil:
    """Insertion sort: elements carry a handful of attributes."""
    cdef Py_ssize_t index
    cdef Py_ssize_t position
    cdef Attribute item
    for index in range(1, count):
        item = attributes[index]
        position = index
        while position > 0 and _compare(&attributes[position - 1], &item) > 0:
            attributes[position] = attributes[position - 1]
            position -= 1
        attributes[position] = item


cdef int _set_names(Names* names, tuple url_names) except -1:
    """Point `names` at the (bytes) URL attribute names, which the caller keeps alive."""
    if len(url_names) > MAX_URL_NAMES:
        raise ValueError("too many URL attribute names")
    names.count = 0
    for name in url_names:
        names.names[names.count] = PyBytes_AS_STRING(<bytes>name)
        names.lengths[names.count] = PyBytes_GET_SIZE(<bytes>name)
        names.count += 1
    return 0


cdef inline bint _is_url_attribute(Attribute* attribute, Names* url_names) noexcept nogil:
    """Whether the attribute's name is one of the URL attribute names."""
    cdef Py_ssize_t index
    for index in range(url_names.count):
        if (
            url_names.lengths[index] == attribute.name_length
            and memcmp(url_names.names[index], attribute.name, attribute.name_length) == 0
        ):
            return True
    return False


cdef void _collapse_digits(Buffer* buffer, size_t start) noexcept nogil:
    """Replace each run of ASCII digits from `start` on with a single "0", in place."""
    cdef size_t read = start
    cdef size_t write = start
    cdef bint in_digits = False
    cdef unsigned char c
    while read < buffer.size:
        c = buffer.data[read]
        read += 1
        if 48 <= c <= 57:
            if not in_digits:
                buffer.data[write] = 48
                write += 1
                in_digits = True
            continue
        in_digits = False
        buffer.data[write] = c
        write += 1
    buffer.size = write


cdef bint _render_prefix(
    Buffer* buffer, xmlNode* c_node, bint normalise, Names* url_names
) except -1:
    """Append `tag\\x1fattributes\\x1f` as `static_noise._element_prefix`; False when unsure."""
    cdef Attribute attributes[MAX_ATTRIBUTES]
    cdef Py_ssize_t count = 0
    cdef Py_ssize_t index
    cdef size_t start = buffer.size
    cdef size_t tag_length
    cdef size_t length
    cdef const unsigned char* value
    cdef Attribute* attribute
    cdef size_t position
    cdef unsigned char c
    if c_node.type != tree.XML_ELEMENT_NODE or c_node.ns is not NULL or c_node.name is NULL:
        return False
    tag_length = strlen(<const char*>c_node.name)
    if not _is_ascii(<const unsigned char*>c_node.name, tag_length):
        return False
    if not _read_attributes(c_node, attributes, &count):
        return False
    _sort(attributes, count)
    length = tag_length + 2
    for index in range(count):
        length += attributes[index].name_length + attributes[index].value_length + 2
    _reserve(buffer, length)
    _put(buffer, <const unsigned char*>c_node.name, tag_length)
    _put(buffer, <const unsigned char*>"\x1f", 1)
    for index in range(count):
        attribute = &attributes[index]
        if index:
            _put(buffer, <const unsigned char*>" ", 1)
        _put(buffer, attribute.name, attribute.name_length)
        _put(buffer, <const unsigned char*>"=", 1)
        value = attribute.value
        length = attribute.value_length
        if normalise:
            if _is_url_attribute(attribute, url_names):
                # value.split("?", 1)[0].split("#", 1)[0]
                for position in range(length):
                    if value[position] == c'?' or value[position] == c'#':
                        length = position
                        break
            while length and is_ascii_space(value[0]):
                value += 1
                length -= 1
            while length and is_ascii_space(value[length - 1]):
                length -= 1
            for position in range(length):
                c = value[position]
                buffer.data[buffer.size + position] = c + 32 if 65 <= c <= 90 else c
            buffer.size += length
        else:
            _put(buffer, value, length)
    _put(buffer, <const unsigned char*>"\x1f", 1)
    if normalise:
        _collapse_digits(buffer, start)
    return True


cdef inline void _put_char(Buffer* buffer, unsigned int ch) noexcept nogil:
    """Append one code point as UTF-8, a lone surrogate as "?" (`encode(..., "replace")`)."""
    cdef unsigned char* out = buffer.data + buffer.size
    if ch < 0x80:
        out[0] = <unsigned char>ch
        buffer.size += 1
    elif ch < 0x800:
        out[0] = <unsigned char>(0xC0 | (ch >> 6))
        out[1] = <unsigned char>(0x80 | (ch & 0x3F))
        buffer.size += 2
    elif 0xD800 <= ch <= 0xDFFF:
        out[0] = c'?'
        buffer.size += 1
    elif ch < 0x10000:
        out[0] = <unsigned char>(0xE0 | (ch >> 12))
        out[1] = <unsigned char>(0x80 | ((ch >> 6) & 0x3F))
        out[2] = <unsigned char>(0x80 | (ch & 0x3F))
        buffer.size += 3
    else:
        out[0] = <unsigned char>(0xF0 | (ch >> 18))
        out[1] = <unsigned char>(0x80 | ((ch >> 12) & 0x3F))
        out[2] = <unsigned char>(0x80 | ((ch >> 6) & 0x3F))
        out[3] = <unsigned char>(0x80 | (ch & 0x3F))
        buffer.size += 4


cdef int _put_text(Buffer* buffer, str text, bint normalise, int* state) except -1:
    """Append text with whitespace runs collapsed (split/join) and, normalising, digit runs.

    `state` carries over pieces: 0 nothing written yet, 1 after a character, 2 after a space
    still pending, 3 after a digit run; the join of pieces is itself whitespace.
    """
    cdef Py_UCS4 ch
    cdef bint space
    cdef bint decimal
    cdef int current = state[0]
    if current:
        # " ".join(pieces): a space separates this piece from the text before it.
        current = 2
    _reserve(buffer, <size_t>len(text) * 4 + 1)
    for ch in text:
        if ch < 128:
            # ASCII: the same tests as below, without the Unicode database calls.
            space = is_ascii_space(<unsigned char>ch)
            decimal = 48 <= ch <= 57
        else:
            space = ch.isspace()
            decimal = ch.isdecimal()
        if space:
            if current:
                current = 2
            continue
        if current == 2:
            buffer.data[buffer.size] = c' '
            buffer.size += 1
        if normalise and decimal:
            # re's `\d` on str is `str.isdecimal()`, over all of Unicode.
            if current != 3:
                buffer.data[buffer.size] = c'0'
                buffer.size += 1
                current = 3
            continue
        _put_char(buffer, <unsigned int>ch)
        current = 1
    state[0] = current
    return 0


def node_keys(list pieces, bint normalise, tuple url_names, prefix_of):
    """`static_noise._python_keyed_nodes`: (elements, key hashes, owner position per piece)."""
    cdef dict positions = {}
    cdef list elements = []
    cdef list owners = []
    cdef list keys = []
    cdef list texts = []
    cdef Py_ssize_t count
    cdef Py_ssize_t index
    cdef Py_ssize_t position
    cdef Py_ssize_t* firsts = NULL
    cdef Py_ssize_t* nexts = NULL
    cdef Py_ssize_t* lasts = NULL
    cdef Buffer buffer
    cdef Names names
    cdef int state
    cdef cetree._Element element
    cdef TextPiece piece
    cdef bytes prefix
    _set_names(&names, url_names)
    buffer.data = NULL
    buffer.size = 0
    buffer.capacity = 0
    count = len(pieces)
    try:
        # Each element's own pieces as a chain: first piece per position, next piece per piece.
        firsts = <Py_ssize_t*>malloc(max(count, 1) * sizeof(Py_ssize_t))
        nexts = <Py_ssize_t*>malloc(max(count, 1) * sizeof(Py_ssize_t))
        lasts = <Py_ssize_t*>malloc(max(count, 1) * sizeof(Py_ssize_t))
        if firsts is NULL or nexts is NULL or lasts is NULL:
            raise MemoryError()
        for index in range(count):
            piece = <TextPiece?>pieces[index]
            texts.append(piece.text)
            owner = piece.element
            found = positions.get(owner)
            nexts[index] = -1
            if found is None:
                position = len(elements)
                positions[owner] = position
                elements.append(owner)
                firsts[position] = index
            else:
                position = found
                nexts[lasts[position]] = index
            lasts[position] = index
            owners.append(position)
        for position in range(len(elements)):
            owner = elements[position]
            buffer.size = 0
            element = require_element(owner)
            if not _render_prefix(&buffer, element._c_node, normalise, &names):
                prefix = (<str?>prefix_of(owner)).encode("utf-8", "replace")
                _reserve(&buffer, <size_t>len(prefix))
                _put(&buffer, <const unsigned char*>PyBytes_AS_STRING(prefix), len(prefix))
            state = 0
            index = firsts[position]
            while index >= 0:
                _put_text(&buffer, <str?>texts[index], normalise, &state)
                index = nexts[index]
            keys.append(nc_blake2b64(buffer.data, buffer.size))
        return elements, keys, owners
    finally:
        free(buffer.data)
        free(firsts)
        free(nexts)
        free(lasts)


include "_page_keys.pxi"
