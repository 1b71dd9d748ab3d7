# Included by _node_walk.pyx: metadata's element searches in one walk of libxml2's nodes
# instead of five.
# `scan_elements` finds in one pass what `metadata` otherwise gets from `index_tags`, the
# author-attribute and publish-date XPaths and the byline loop over `_BYLINE_TAGS`;
# `body_text_sample` is `language._read_body_text_python`, `meta_contents` is
# `metadata.page_index._read_meta_tags_python`.

cdef enum:
    # Low bits of a tag's kind: 1 + its position in `indexed_tags`, 0 when not indexed.
    INDEX_MASK = 0xFF
    KIND_BYLINE = 0x100
    KIND_TIME = 0x200
    MAX_INDEXED = 64
    MAX_MARKERS = 16


cdef int _kind_of(const_xmlChar* name, list indexed, list byline) except -1:
    """The kind bits of a no-namespace tag name, by comparing the strings."""
    cdef int kind = 0
    cdef Py_ssize_t position
    cdef bytes wanted
    for position in range(len(indexed)):
        wanted = indexed[position]
        if strcmp(<const char*>name, <const char*>wanted) == 0:
            kind = position + 1
            break
    for wanted in byline:
        if strcmp(<const char*>name, <const char*>wanted) == 0:
            kind |= KIND_BYLINE
            break
    if strcmp(<const char*>name, "time") == 0:
        kind |= KIND_TIME
    return kind


cdef int _classify(xmlNode* c_node, TagMemo* memo, list indexed, list byline) except -1:
    """`_kind_of` the node's name, memoised by the name's pointer."""
    cdef bint known
    cdef long* kept = memo_slot(memo, c_node.name, &known)
    cdef int kind
    if kept is not NULL and known:
        return kept[0]
    kind = _kind_of(c_node.name, indexed, byline)
    if kept is not NULL:
        kept[0] = kind
    return kind


cdef inline unsigned char _lower(unsigned char c) noexcept nogil:
    """ASCII lower case; other bytes as they are."""
    return c + 32 if 65 <= c <= 90 else c


cdef struct Markers:
    # The markers' bytes (owned by a list the caller keeps alive), and for each byte the bit
    # set of the markers it starts, either case: most bytes start none and cost one lookup.
    const unsigned char* texts[MAX_MARKERS]
    unsigned int starting[256]


cdef bint _has_marker(const unsigned char* text, Markers* markers) noexcept nogil:
    """Whether `text` holds a marker, ASCII case ignored (markers are lower-case ASCII)."""
    cdef const unsigned char* wanted
    cdef unsigned int candidates
    cdef Py_ssize_t index
    cdef Py_ssize_t offset
    while text[0]:
        candidates = markers.starting[text[0]]
        index = 0
        while candidates:
            if candidates & 1:
                wanted = markers.texts[index]
                offset = 1
                while wanted[offset] and _lower(text[offset]) == wanted[offset]:
                    offset += 1
                if not wanted[offset]:
                    return True
            candidates >>= 1
            index += 1
        text += 1
    return False


cdef inline bint _single_text(xmlAttr* attribute) noexcept nogil:
    """Whether the attribute's value is one text node (or empty): its bytes are the value."""
    cdef xmlNode* child = attribute.children
    return child is NULL or (child.type == tree.XML_TEXT_NODE and child.next is NULL)


cdef inline const_xmlChar* _value_bytes(xmlAttr* attribute) noexcept nogil:
    """The value's UTF-8 bytes, for an attribute `_single_text` accepts."""
    cdef xmlNode* child = attribute.children
    if child is NULL or child.content is NULL:
        return <const_xmlChar*>""
    return child.content


cdef bint _value_is(xmlNode* c_node, xmlAttr* attribute, const char* wanted, str text) except -1:
    """Whether the attribute's value is exactly `wanted` (`text` is the same as a str)."""
    if _single_text(attribute):
        return strcmp(<const char*>_value_bytes(attribute), wanted) == 0
    return cetree.attributeValue(c_node, attribute) == text


cdef struct Kinds:
    # What the walk looks for below the root element, and what it needs to tell names apart.
    TagMemo table
    Markers markers


cdef int _walk(
    cetree._Document doc,
    xmlNode* top,
    bint in_root,
    Kinds* kinds,
    list indexed,
    list byline_names,
    list found_tags,
    list authors,
    list dates,
    list bylines,
) except -1:
    """Gather below `top` (a top-level element): 1 when done, 0 to decline the page.

    Outside the root element only the XPath searches (author and date marks) look.
    """
    cdef xmlNode* c_node = top
    cdef xmlNode* c_child
    cdef xmlAttr* attribute
    cdef const_xmlChar* name
    cdef const_xmlChar* href
    cdef int kind
    cdef bint author
    cdef bint dated
    cdef bint byline
    cdef cetree._Element element
    while True:
        if c_node.type != tree.XML_ELEMENT_NODE:  # an entity reference
            return 0
        if c_node.ns is NULL:
            kind = _classify(c_node, &kinds.table, indexed, byline_names)
            if not in_root:
                kind &= KIND_TIME  # `//time[@pubdate]` looks everywhere, the rest in root
        else:
            href = c_node.ns.href
            if href is NULL or href[0] == 0:
                return 0  # lxml and XPath disagree on what such a name matches
            kind = 0
        author = dated = byline = False
        attribute = c_node.properties
        while attribute is not NULL:
            if attribute.ns is NULL:
                name = attribute.name
                if strcmp(<const char*>name, "rel") == 0:
                    if _value_is(c_node, attribute, "author", "author"):
                        author = True
                elif strcmp(<const char*>name, "itemprop") == 0:
                    if _value_is(c_node, attribute, "author", "author"):
                        author = True
                    elif _value_is(c_node, attribute, "datePublished", "datePublished"):
                        dated = True
                elif kind & KIND_TIME and strcmp(<const char*>name, "pubdate") == 0:
                    dated = True
                elif kind & KIND_BYLINE and (
                    strcmp(<const char*>name, "class") == 0 or strcmp(<const char*>name, "id") == 0
                ):
                    if not _single_text(attribute) or _has_marker(
                        _value_bytes(attribute), &kinds.markers
                    ):
                        byline = True
            attribute = attribute.next
        if kind & INDEX_MASK or author or dated or byline:
            element = cetree.elementFactory(doc, c_node)
            if kind & INDEX_MASK:
                (<list>found_tags[(kind & INDEX_MASK) - 1]).append(element)
            if author:
                authors.append(element)
            if dated:
                dates.append(element)
            if byline:
                bylines.append(element)
        c_child = first_walked_child(c_node)
        while c_child is NULL and c_node is not top:
            c_child = next_walked_sibling(c_node)
            if c_child is NULL:
                c_node = c_node.parent
        if c_child is NULL:
            return 1
        c_node = c_child


def scan_elements(root, tuple indexed_tags, tuple byline_tags, tuple byline_markers):
    """(tags, author-marked, date-marked, byline candidates) of the page; None if it cannot.

    tags: the elements of each of `indexed_tags`, as `root.iter(*indexed_tags)` finds them.
    author-marked: elements with `rel` or `itemprop` "author" anywhere in the document (as
    `//@rel[.='author'] | //@itemprop[.='author']`), in document order, once each.
    date-marked: `//@itemprop[.="datePublished"]/.. | //time[@pubdate]`, in document order.
    byline candidates: `byline_tags` elements below `root` whose class or id holds a marker,
    ASCII case ignored: every element the caller's byline test accepts, and a few it rejects.
    `root` must be the document's root element; a page with an entity reference, a namespace
    without URI or a DTD declaring attributes is declined (None).
    """
    cdef cetree._Element element = require_element(root)
    cdef cetree._Document doc = element._doc
    cdef xmlDoc* c_doc = doc._c_doc
    cdef xmlNode* top = element._c_node
    cdef xmlNode* c_node
    cdef Kinds kinds
    cdef Py_ssize_t index
    cdef unsigned char first
    cdef list indexed = [tag.encode("utf-8") for tag in indexed_tags]
    cdef list byline_names = [tag.encode("utf-8") for tag in byline_tags]
    cdef list markers = [marker.lower().encode("ascii") for marker in byline_markers]
    cdef list found_tags = [[] for _ in indexed_tags]
    cdef list authors = []
    cdef list dates = []
    cdef list bylines = []
    if len(indexed) > MAX_INDEXED or len(markers) > MAX_MARKERS:
        raise ValueError("too many indexed tags or byline markers")
    if declares_attributes(c_doc):
        return None
    if top.parent is not <xmlNode*>c_doc:
        return None
    memset(&kinds, 0, sizeof(Kinds))
    for index in range(len(markers)):
        if not markers[index]:
            raise ValueError("empty byline marker")
        kinds.markers.texts[index] = <const unsigned char*>(<const char*>(<bytes>markers[index]))
        first = kinds.markers.texts[index][0]
        kinds.markers.starting[first] |= 1u << index
        if 97 <= first <= 122:  # a-z: the upper-case letter starts the marker too
            kinds.markers.starting[first - 32] |= 1u << index
    # The XPaths search the whole document: other top-level elements too, in document order.
    c_node = c_doc.children
    while c_node is not NULL:
        if is_walked(c_node):
            if not _walk(
                doc, c_node, c_node is top, &kinds, indexed, byline_names, found_tags,
                authors, dates, bylines,
            ):
                return None
        c_node = c_node.next
    return dict(zip(indexed_tags, found_tags)), authors, dates, bylines


def meta_contents(list metas):
    """`metadata.read_meta_tags` over the page's `<meta>` elements: each lower-cased name,
    property, itemprop and http-equiv mapped to the non-blank contents, in document order."""
    # `element.get(name)` is `attributeValueFromNsName(c_node, NULL, name)` for a name
    # without a namespace: the values are the ones the Python loop reads, without its calls.
    cdef dict found = {}
    cdef cetree._Element meta
    cdef xmlNode* c_node
    for item in metas:
        meta = require_element(item)
        c_node = meta._c_node
        content = cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"content")
        if content is None:
            continue
        content = content.strip()
        if not content:
            continue
        for name in (
            cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"property"),
            cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"name"),
            cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"itemprop"),
            cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"http-equiv"),
        ):
            if name:
                key = name.strip().lower()
                values = found.get(key)
                if values is None:
                    found[key] = [content]
                else:
                    values.append(content)
    return found


cdef inline bint _is_iterated(xmlNode* c_node) noexcept nogil:
    """The nodes `iter()` yields: elements, comments, processing instructions, entities."""
    return (
        c_node.type == tree.XML_ELEMENT_NODE
        or c_node.type == tree.XML_COMMENT_NODE
        or c_node.type == tree.XML_PI_NODE
        or c_node.type == tree.XML_ENTITY_REF_NODE
    )


cdef inline xmlNode* _first_iterated_child(xmlNode* c_node) noexcept nogil:
    c_node = c_node.children
    while c_node is not NULL and not _is_iterated(c_node):
        c_node = c_node.next
    return c_node


cdef inline xmlNode* _next_iterated_sibling(xmlNode* c_node) noexcept nogil:
    c_node = c_node.next
    while c_node is not NULL and not _is_iterated(c_node):
        c_node = c_node.next
    return c_node


cdef bint _is_no_text(xmlNode* c_node, TagMemo* memo, frozenset no_text_tags) except -1:
    """Whether a no-namespace element's tag is in `no_text_tags`, memoised by name pointer."""
    cdef bint known
    cdef long* kept = memo_slot(memo, c_node.name, &known)
    cdef bint found
    if kept is not NULL and known:
        return kept[0]
    found = cetree.pyunicode(c_node.name) in no_text_tags
    if kept is not NULL:
        kept[0] = found
    return found


cdef inline bint _plain_name(xmlNode* c_node, const char* name) except -1:
    """Whether an element is `name` with no namespace, as lxml's tag matching sees it."""
    if c_node.ns is not NULL:
        return False
    return strcmp(<const char*>c_node.name, name) == 0


def body_text_sample(root, frozenset no_text_tags, Py_ssize_t limit):
    """`language._read_body_text(root)`: the body's visible text runs until past `limit`.

    Runs are joined by spaces; text inside `no_text_tags` elements is skipped (their tails
    are not). `root` must be the document's root element; a tree holding an entity reference
    or a namespace without URI is declined (None).
    """
    cdef cetree._Element element = require_element(root)
    cdef xmlNode* top = element._c_node
    cdef xmlNode* c_node
    cdef xmlNode* c_child
    cdef const_xmlChar* href
    cdef Py_ssize_t size = 0
    cdef int state
    cdef bint skipped
    cdef TagMemo table
    cdef list parts = []
    memset(&table, 0, sizeof(TagMemo))
    # `root.find("body")`: the first child element named body, else the root itself.
    c_node = top.children
    while c_node is not NULL:
        if c_node.type == tree.XML_ELEMENT_NODE:
            if c_node.ns is not NULL:
                href = c_node.ns.href
                if href is NULL or href[0] == 0:
                    return None  # lxml matches such a name as if it had no namespace
            elif _plain_name(c_node, "body"):
                top = c_node
                break
        c_node = c_node.next
    c_node = top
    while True:
        if c_node.type == tree.XML_ENTITY_REF_NODE:
            return None
        if c_node.type == tree.XML_ELEMENT_NODE:
            if c_node.ns is not NULL:
                href = c_node.ns.href
                if href is NULL or href[0] == 0:
                    return None
                skipped = False  # "{uri}script" is not a name in `no_text_tags`
            else:
                skipped = _is_no_text(c_node, &table, no_text_tags)
            if not skipped:
                state = text_run_state(c_node.children)
                if state:
                    text = cetree.textOf(c_node)
                    if state == 1 or (text and not text.isspace()):
                        parts.append(text)
                        size += len(text)
        state = text_run_state(c_node.next)  # the tail: `top`'s own too, as `iter()` gives it
        if state:
            text = cetree.tailOf(c_node)
            if state == 1 or (text and not text.isspace()):
                parts.append(text)
                size += len(text)
        if size > limit:
            break
        c_child = _first_iterated_child(c_node) if c_node.type == tree.XML_ELEMENT_NODE else NULL
        while c_child is NULL and c_node is not top:
            c_child = _next_iterated_sibling(c_node)
            if c_child is NULL:
                c_node = c_node.parent
        if c_child is NULL:
            break
        c_node = c_child
    return " ".join(parts)
