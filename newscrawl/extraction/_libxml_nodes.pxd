# cython: language_level=3
# Inline helpers shared by the compiled extraction modules (`_*.pyx`): each module that
# cimports this file gets its own copy of them, so there is no extra module to build or load.

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlNode

cdef enum:
    # Slots of a TagMemo.
    TAG_SLOTS = 256


cdef struct TagMemo:
    # Tag names are interned in the document's dictionary, so a table keyed by the name's
    # pointer classifies each distinct (no-namespace) name of a page once; a full table only
    # means classifying again. Zeroed before use.
    const_xmlChar* names[TAG_SLOTS]
    long values[TAG_SLOTS]


cdef inline long* memo_slot(TagMemo* memo, const_xmlChar* name, bint* known) noexcept nogil:
    """Where the memo keeps `name`'s value, and whether it is there yet; NULL when full.

    A name not yet known takes its slot at once: the caller stores the value it works out.
    """
    cdef size_t slot = (<size_t>name >> 4) & (TAG_SLOTS - 1)
    cdef size_t probe
    for probe in range(TAG_SLOTS):
        if memo.names[slot] == name:
            known[0] = True
            return &memo.values[slot]
        if memo.names[slot] is NULL:
            memo.names[slot] = name
            known[0] = False
            return &memo.values[slot]
        slot = (slot + 1) & (TAG_SLOTS - 1)
    return NULL


cdef inline bint tag_in(xmlNode* c_node, TagMemo* memo, tags) except -1:
    """`element.tag in tags`, memoised by the tag name's pointer."""
    cdef long* kept = NULL
    cdef bint known
    cdef bint found
    if c_node.ns is NULL:
        kept = memo_slot(memo, c_node.name, &known)
        if kept is not NULL and known:
            return kept[0]
    found = cetree.namespacedName(c_node) in tags
    if kept is not NULL:
        kept[0] = found
    return found


cdef inline str check_lxml_major(str module):
    """The lxml version `module` was built for; ImportError if the running major differs."""
    # The modules read lxml's object layout from its headers: another major may lay it out
    # otherwise, so they refuse to load and their callers fall back to the Python loops.
    import lxml.etree

    built = cetree.LXML_VERSION_STRING.decode("ascii")
    if built.split(".")[0] != lxml.etree.__version__.split(".")[0]:
        raise ImportError(f"{module} was built for lxml {built}, running {lxml.etree.__version__}")
    return built


cdef inline bint is_ascii_space(unsigned char c) noexcept nogil:
    """The ASCII characters `str.isspace()` accepts (it also counts \\x1c-\\x1f)."""
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


cdef inline int text_run_state(xmlNode* c_node) noexcept nogil:
    """The text lxml joins from `c_node` on: 0 empty or ASCII blank, 1 visible, 2 unsure."""
    # Mirrors lxml's `_collectText`: consecutive text and CDATA nodes, XInclude markers skipped.
    # Non-ASCII bytes may be Unicode spaces (NBSP...), so those runs are left to `str.isspace`.
    cdef const unsigned char* text
    cdef bint unsure = False
    while c_node is not NULL:
        if c_node.type == tree.XML_TEXT_NODE or c_node.type == tree.XML_CDATA_SECTION_NODE:
            text = <const unsigned char*>c_node.content
            if text is not NULL:
                while text[0]:
                    if text[0] >= 0x80:
                        unsure = True
                    elif not is_ascii_space(text[0]):
                        return 1
                    text += 1
        elif c_node.type != tree.XML_XINCLUDE_START and c_node.type != tree.XML_XINCLUDE_END:
            break
        c_node = c_node.next
    return 2 if unsure else 0


cdef inline bint declares_attributes(tree.xmlDoc* c_doc) noexcept nogil:
    """Whether the document's DTDs declare attributes, whose defaults `element.get` reports."""
    return (
        (c_doc.intSubset is not NULL and c_doc.intSubset.attributes is not NULL)
        or (c_doc.extSubset is not NULL and c_doc.extSubset.attributes is not NULL)
    )


cdef inline bint is_walked(xmlNode* c_node) noexcept nogil:
    """Whether iterwalk yields the node: elements and entity references, not comments or PIs."""
    return c_node.type == tree.XML_ELEMENT_NODE or c_node.type == tree.XML_ENTITY_REF_NODE


cdef inline xmlNode* first_walked_child(xmlNode* c_node) noexcept nogil:
    """First child iterwalk visits (`_findChildForwards(c_node, 0)`, comments and PIs skipped)."""
    c_node = c_node.children
    while c_node is not NULL and not is_walked(c_node):
        c_node = c_node.next
    return c_node


cdef inline xmlNode* next_walked_sibling(xmlNode* c_node) noexcept nogil:
    """Next sibling iterwalk visits (`_nextElement`, comments and PIs skipped)."""
    c_node = c_node.next
    while c_node is not NULL and not is_walked(c_node):
        c_node = c_node.next
    return c_node


cdef inline cetree._Element require_element(value):
    """`value` as an lxml element: a typed variable accepts None, whose node would crash."""
    if value is None:
        raise TypeError("an lxml element is required, not None")
    return value
