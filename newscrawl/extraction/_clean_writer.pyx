# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twin of `clean_html`'s writer and serialiser: the same HTML from the same elements."""

# `render` is `render_clean_html`'s writing and serialising, line for line: `Writer` is
# `_CleanWriter`, `Output` is `_Output`, `_serialise` is `_serialise`. It reads the page's nodes
# from libxml2's structs (text and tails through lxml's C API) and builds the output from C-level
# objects, so a page's article costs no Python frame per element. Attribute copying, text
# cleaning and URL escaping stay in Python (they are given as arguments): they run rarely.

cimport cython

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode
from newscrawl.extraction._libxml_nodes cimport check_lxml_major, require_element

cetree.import_lxml__etree()

# The lxml this module was compiled against (see `_libxml_nodes.check_lxml_major`).
BUILT_FOR_LXML: str = check_lxml_major("_clean_writer")

# `clean_html`'s kinds of tag (`_INVISIBLE, _VISIBLE_DROPPED, _KEPT, _BLOCK, _UNWRAPPED`).
cdef enum:
    INVISIBLE = 0
    VISIBLE_DROPPED = 1
    KEPT = 2
    BLOCK = 3
    UNWRAPPED = 4


@cython.final
cdef class Output:
    """`clean_html._Output`."""

    cdef str tag
    cdef dict attributes
    cdef str text
    cdef str tail
    cdef list children
    cdef Output parent

    def __cinit__(self, str tag, dict attributes):
        self.tag = tag
        self.attributes = attributes
        self.children = []


cdef inline Output _new_output(str tag, dict attributes=None):
    return Output.__new__(Output, tag, attributes)


cdef inline void _append(Output parent, Output child):
    child.parent = parent
    parent.children.append(child)


cdef inline void _append_text(Output target, str text):
    """Text at the end of `target`'s content: after its last child, or as its text."""
    cdef Output last
    if target.children:
        last = <Output>target.children[len(target.children) - 1]
        last.tail = text if not last.tail else last.tail + text
    else:
        target.text = text if not target.text else target.text + text


cdef inline bint _is_lxml_child(xmlNode* c_node) noexcept nogil:
    """Whether iterating an lxml element yields the node: elements, comments, PIs, entities."""
    return (
        c_node.type == tree.XML_ELEMENT_NODE
        or c_node.type == tree.XML_COMMENT_NODE
        or c_node.type == tree.XML_PI_NODE
        or c_node.type == tree.XML_ENTITY_REF_NODE
    )


@cython.final
cdef class Writer:
    """`clean_html._CleanWriter`."""

    cdef object base_url
    cdef Output root
    cdef Output open_paragraph
    cdef Output space_pending_in
    cdef Output open_list
    cdef int pre_depth
    cdef cetree._Document doc
    cdef dict tag_actions
    cdef object classify
    cdef object copy_attributes
    cdef object clean_text
    cdef frozenset attributed_tags
    cdef frozenset inline_kept
    cdef frozenset text_containers

    cdef void write(self, cetree._Element element) except *:
        self.doc = element._doc
        self.write_element(element._c_node, self.root, True, False)
        self.open_paragraph = None

    cdef void write_paragraph(self, str text) except *:
        """Write text as a `<p>` element holding it would be written."""
        cdef Output paragraph = _new_output("p")
        self.open_paragraph = None
        _append(self.root, paragraph)
        self.write_text(text, paragraph, False)
        paragraph.tail = "\n"
        self.open_paragraph = None

    cdef Output inline_target(self, Output parent, bint top_level, bint spaced):
        if not top_level:
            return parent
        if self.open_paragraph is None:
            self.open_paragraph = _new_output("p")
            _append(parent, self.open_paragraph)
        elif self.space_pending_in is self.open_paragraph and not spaced:
            _append_text(self.open_paragraph, " ")
        self.space_pending_in = None
        return self.open_paragraph

    cdef Output list_target(self, Output parent):
        if parent.children and parent.children[len(parent.children) - 1] is self.open_list:
            return self.open_list
        self.open_list = _new_output("ul")
        self.open_list.tail = "\n"
        _append(parent, self.open_list)
        return self.open_list

    cdef void write_text(self, str text, Output parent, bint top_level) except *:
        cdef Output paragraph
        cdef Output target
        cdef str before
        cdef bint separated
        if not text:
            return
        if top_level and not text.strip():
            paragraph = self.open_paragraph
            if paragraph is None or paragraph.parent is not parent:
                return
            if paragraph.children:
                before = (<Output>paragraph.children[len(paragraph.children) - 1]).tail
                separated = bool(before) and before[len(before) - 1].isspace()
            else:
                before = paragraph.text
                separated = not before or before[len(before) - 1].isspace()
            if not separated:
                self.space_pending_in = paragraph
            return
        if not text.isprintable() or "  " in text:
            text = self.clean_text(text, in_pre=self.pre_depth > 0)
        target = parent
        if top_level:
            target = self.inline_target(parent, True, text[0].isspace())
        _append_text(target, text)

    cdef void write_children(self, xmlNode* c_node, Output parent, bint top_level) except *:
        cdef xmlNode* c_child
        text = cetree.textOf(c_node)
        if text:
            self.write_text(text, parent, top_level)
        c_child = c_node.children
        while c_child is not NULL:
            if _is_lxml_child(c_child):
                self.write_element(c_child, parent, top_level, True)
            c_child = c_child.next

    cdef void write_element(
        self, xmlNode* c_node, Output parent, bint top_level, bint with_tail
    ) except *:
        cdef int kind = INVISIBLE
        cdef str tag = ""
        if c_node.type == tree.XML_ELEMENT_NODE:
            name = cetree.namespacedName(c_node)
            action = self.tag_actions.get(name)
            if action is None:
                action = self.classify(name)
            kind, tag = action
        if kind == KEPT:
            self.write_kept(c_node, tag, parent, top_level)
        elif kind == UNWRAPPED:
            self.write_children(c_node, parent, top_level)
        elif kind == BLOCK:
            if top_level:
                self.open_paragraph = None
            self.write_children(c_node, parent, top_level)
            if top_level:
                self.open_paragraph = None
        elif kind == VISIBLE_DROPPED:
            self.write_text(" ", parent, top_level)
        if with_tail:
            tail = cetree.tailOf(c_node)
            if tail:
                self.write_text(tail, parent, top_level)

    cdef void write_kept(self, xmlNode* c_node, str tag, Output parent, bint top_level) except *:
        cdef dict attributes = None
        cdef Output target
        cdef Output copy
        cdef Output saved
        cdef bint inline
        cdef bint child_top_level
        if tag in self.attributed_tags:
            attributes = self.copy_attributes(
                cetree.elementFactory(self.doc, c_node), tag, self.base_url
            )
            if tag == "img" and "src" not in attributes:
                return
            if not attributes:
                attributes = None
        inline = tag in self.inline_kept
        if tag == "img" and parent.tag == "figure":
            target = parent
            self.open_paragraph = None
        elif inline:
            target = self.inline_target(parent, True, False) if top_level else parent
        else:
            if top_level:
                self.open_paragraph = None
            target = parent
            if tag == "li" and top_level and parent.tag != "ul" and parent.tag != "ol":
                target = self.list_target(parent)
        copy = _new_output(tag, attributes)
        _append(target, copy)
        if tag == "img" or tag == "br":
            return
        child_top_level = not inline and tag not in self.text_containers
        saved = self.open_paragraph
        self.open_paragraph = None
        if tag == "pre":
            self.pre_depth += 1
            self.write_children(c_node, copy, child_top_level)
            self.pre_depth -= 1
        else:
            self.write_children(c_node, copy, child_top_level)
        self.open_paragraph = saved if inline else None
        if not inline and top_level:
            copy.tail = "\n"


cdef str _escape_text(str text):
    """`clean_html.escape_text`."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


cdef str _quote_attribute(str value):
    """`clean_html.quote_attribute`."""
    value = _escape_text(value)
    if '"' not in value:
        return '"' + value + '"'
    if "'" not in value:
        return "'" + value + "'"
    return '"' + value.replace('"', "&quot;") + '"'


cdef void _serialise(
    Output element, list out, frozenset void_tags, frozenset optional_end_tags,
    frozenset uri_attributes, escape_uri,
) except *:
    """`clean_html._serialise`."""
    cdef str tag = element.tag
    cdef Output child
    out.append("<" + tag)
    if element.attributes:
        for name, value in element.attributes.items():
            if name in uri_attributes:
                value = escape_uri(value)
            out.append(" " + name + "=" + _quote_attribute(value))
    out.append(">")
    if tag not in void_tags and (
        element.text or element.children or tag not in optional_end_tags
    ):
        if element.text:
            out.append(_escape_text(element.text))
        for child in element.children:
            _serialise(child, out, void_tags, optional_end_tags, uri_attributes, escape_uri)
        out.append("</" + tag + ">")
    if element.tail:
        out.append(_escape_text(element.tail))


def render(
    list elements,
    base_url,
    dict tag_actions,
    classify,
    copy_attributes,
    clean_text,
    frozenset attributed_tags,
    frozenset inline_kept,
    frozenset text_containers,
    frozenset void_tags,
    frozenset optional_end_tags,
    frozenset uri_attributes,
    escape_uri,
):
    """`render_clean_html` of elements none of which is inside another, and of texts."""
    cdef Writer writer = Writer.__new__(Writer)
    cdef Output child
    cdef list out = []
    writer.base_url = base_url
    writer.root = _new_output("div")
    writer.tag_actions = tag_actions
    writer.classify = classify
    writer.copy_attributes = copy_attributes
    writer.clean_text = clean_text
    writer.attributed_tags = attributed_tags
    writer.inline_kept = inline_kept
    writer.text_containers = text_containers
    for element in elements:
        if isinstance(element, str):
            writer.write_paragraph(str(element))  # an exact str: lxml's text results subclass it
        else:
            writer.write(require_element(element))
    for child in writer.root.children:
        _serialise(child, out, void_tags, optional_end_tags, uri_attributes, escape_uri)
    return "".join(out).strip()
