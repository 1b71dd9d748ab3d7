# Included by _node_walk.pyx: the dynamic-noise loops, the anchor LCA search and the candidate
# judging.
# `lca_nodes` is the integer part of `dynamic_noise._find_candidates_python`: finding the
# `<a href>` anchors, mapping them to walk indices and climbing to their LCAs. It creates no
# element proxies and no per-element dict.


cdef bint _is_href_anchor(xmlNode* c_node) except -1:
    """An element `iter("a")` yields whose `get("href")` is not None."""
    cdef const_xmlChar* name = c_node.name
    cdef xmlAttr* attribute
    if c_node.type != tree.XML_ELEMENT_NODE or name[0] != c'a' or name[1] != 0:
        return False
    attribute = c_node.properties
    while attribute is not NULL:
        name = attribute.name
        if (
            attribute.ns is NULL and name[0] == c'h' and name[1] == c'r' and name[2] == c'e'
            and name[3] == c'f' and name[4] == 0
        ):
            return True
        attribute = attribute.next
    # Not set on the element, but a DTD default could supply it: ask lxml's `get`.
    return cetree.attributeValueFromNsName(c_node, NULL, <const_xmlChar*>"href") is not None


cdef Py_ssize_t _count_hidden_anchors(xmlNode* top) except -1:
    """`<a href>` elements below `top` (an element the walk did not enter), in any depth."""
    cdef Py_ssize_t count = 0
    cdef xmlNode* c_node = top.children
    while c_node is not NULL and c_node is not top:
        if c_node.type == tree.XML_ELEMENT_NODE:
            if _is_href_anchor(c_node):
                count += 1
            if c_node.children is not NULL:
                c_node = c_node.children
                continue
        # Next in document order within `top`: a sibling, else an ancestor's sibling.
        while c_node is not top and c_node.next is NULL:
            c_node = c_node.parent
        if c_node is not top:
            c_node = c_node.next
    return count


def lca_nodes(list elements, list parents, Py_ssize_t first):
    """The unique deeper LCAs of consecutive anchors below walk node `first`, with depths.

    Returns (walk index, depth) pairs in first-seen order, as `_find_candidates_python` meets
    them before its filters; empty with fewer than two anchors.
    """
    cdef Py_ssize_t count = len(elements)
    cdef Py_ssize_t end = first + 1
    cdef Py_ssize_t i
    cdef Py_ssize_t j
    cdef Py_ssize_t hidden
    cdef Py_ssize_t anchors = 0
    cdef Py_ssize_t capacity
    cdef Py_ssize_t earlier
    cdef Py_ssize_t later
    cdef Py_ssize_t best
    cdef Py_ssize_t previous_shared = -1
    cdef Py_ssize_t depth
    cdef Py_ssize_t node
    cdef Py_ssize_t* parent_of = NULL
    cdef Py_ssize_t* nodes = NULL
    cdef Py_ssize_t* shared = NULL
    cdef unsigned char* seen = NULL
    cdef cetree._Element element
    cdef xmlNode* c_node
    found = []
    if count == 0:
        return found
    # Indices below are read without bounds checks: check the inputs they come from.
    if not 0 <= first < count:
        raise IndexError(f"walk node {first} out of range {count}")
    if len(parents) != count:
        raise ValueError("elements and parents differ in length")
    try:
        parent_of = <Py_ssize_t*>malloc(count * sizeof(Py_ssize_t))
        seen = <unsigned char*>malloc(count * sizeof(unsigned char))
        if parent_of is NULL or seen is NULL:
            raise MemoryError()
        for i in range(count):
            parent_of[i] = parents[i]
            if not -1 <= parent_of[i] < i:
                raise ValueError(f"walk node {i} has parent {parent_of[i]}: not a pre-order tree")
            seen[i] = 0
        # Pre-order: the subtree of `first` is the run of nodes whose parents are inside it.
        while end < count and parent_of[end] >= first:
            end += 1
        capacity = 64
        nodes = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
        if nodes is NULL:
            raise MemoryError()
        for i in range(first, end):
            element = require_element(elements[i])
            c_node = element._c_node
            if _is_href_anchor(c_node):
                hidden = 1
            elif (
                c_node.type == tree.XML_ELEMENT_NODE
                and c_node.children is not NULL
                and (i + 1 >= count or parent_of[i + 1] != i)
            ):
                # The walk skipped this element's inside (noscript, svg...): an anchor in there
                # has the same LCAs as the element itself, its nearest walked ancestor.
                hidden = _count_hidden_anchors(c_node)
            else:
                continue
            for j in range(hidden):
                if anchors == capacity:
                    capacity *= 2
                    shared = <Py_ssize_t*>malloc(capacity * sizeof(Py_ssize_t))
                    if shared is NULL:
                        raise MemoryError()
                    for node in range(anchors):
                        shared[node] = nodes[node]
                    free(nodes)
                    nodes = shared
                    shared = NULL
                nodes[anchors] = i
                anchors += 1
        if anchors < 2:
            return found  # an anchor's LCAs are with its neighbours: a lone anchor has none
        # In walk (pre-)order, the ancestors of a later node that come no later than an earlier
        # node are exactly the two nodes' common ancestors: the first one met climbing is the
        # LCA. Both LCAs of an anchor are its ancestors: the deeper has the larger walk index.
        for i in range(anchors):
            if i + 1 < anchors:
                earlier = nodes[i]
                later = nodes[i + 1]
                while later > earlier:
                    later = parent_of[later]
            else:
                later = -1
            if i == 0:
                best = later
            elif i + 1 == anchors:
                best = previous_shared
            else:
                best = later if later > previous_shared else previous_shared
            previous_shared = later
            if seen[best]:
                continue
            seen[best] = 1
            depth = 0
            node = parent_of[best]
            while node >= 0:
                depth += 1
                node = parent_of[node]
            found.append((best, depth))
        return found
    finally:
        free(parent_of)
        free(seen)
        free(nodes)
        free(shared)


cdef Py_ssize_t _stripped_length(str text) except -1:
    """`len(text.strip())`, without building the stripped string."""
    cdef Py_ssize_t start = 0
    cdef Py_ssize_t end = len(text)
    cdef Py_UCS4 character
    while start < end:
        character = text[start]
        if not character.isspace():
            break
        start += 1
    while end > start:
        character = text[end - 1]
        if not character.isspace():
            break
        end -= 1
    return end - start


def judge_candidates(
    list pieces, list ranges, set removed, bint bottom_up, double alpha, double beta
):
    """`dynamic_noise._judge_python`: which candidate piece ranges are noise, in order.

    Bottom-up, removed pieces do not count and a noise range's pieces join `removed` at once.
    """
    cdef Py_ssize_t count = len(pieces)
    cdef Py_ssize_t* sizes = NULL
    cdef unsigned char* in_link = NULL
    cdef unsigned char* gone = NULL
    cdef Py_ssize_t start
    cdef Py_ssize_t end
    cdef Py_ssize_t index
    cdef Py_ssize_t text_chars
    cdef Py_ssize_t link_chars
    cdef bint noisy
    flags = []
    try:
        sizes = <Py_ssize_t*>malloc((count + 1) * sizeof(Py_ssize_t))
        in_link = <unsigned char*>malloc(count + 1)
        gone = <unsigned char*>malloc(count + 1)
        if sizes is NULL or in_link is NULL or gone is NULL:
            raise MemoryError()
        for index in range(count):
            piece = pieces[index]
            sizes[index] = _stripped_length(piece.text)
            in_link[index] = bool(piece.in_link)
            gone[index] = 0
        if bottom_up:
            for index in removed:
                if 0 <= index < count:
                    gone[index] = 1
        for start, end in ranges:
            if not 0 <= start <= end <= count:
                raise IndexError(f"piece range ({start}, {end}) out of range {count}")
            text_chars = link_chars = 0
            for index in range(start, end):
                if gone[index]:
                    continue
                text_chars += sizes[index]
                if in_link[index]:
                    link_chars += sizes[index]
            if text_chars == 0:
                # Bottom-up, a block whose every piece was already found to be noise is noise.
                flags.append(bool(bottom_up and start < end))
                continue
            noisy = (
                text_chars - link_chars < alpha
                or <double>link_chars / <double>text_chars > beta
            )
            flags.append(noisy)
            if noisy and bottom_up:
                removed.update(range(start, end))
                for index in range(start, end):
                    gone[index] = 1
        return flags
    finally:
        free(sizes)
        free(in_link)
        free(gone)
