# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twins of the extraction's walks over libxml2's nodes: text, hints, metadata, links."""

# One extension module, its parts included from .pxi files:
#   _text_walk.pxi       `index_text` is `document._index_text`; `joined_text`
#   _ancestor_flags.pxi  `ancestor_flags` is `block_features._ancestor_flags`; container_fill's
#                        named-body candidates
#   _metadata_scan.pxi   metadata's element searches and the language guess's body-text sample
#   _dynamic_lca.pxi     dynamic_noise's link-LCA search and candidate judging
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
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memset, strcmp, strlen

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlAttr, xmlDoc, xmlNode
from newscrawl.extraction._libxml_nodes cimport (
    TagMemo,
    check_lxml_major,
    declares_attributes,
    first_walked_child,
    is_ascii_space,
    is_walked,
    memo_slot,
    next_walked_sibling,
    require_element,
    text_run_state,
)


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)
    object PyUnicode_DecodeUTF8(const char* data, Py_ssize_t size, const char* errors)
    object PyUnicode_FromKindAndData(int kind, const void* data, Py_ssize_t size)

cetree.import_lxml__etree()

# The lxml this module was compiled against (see `_libxml_nodes.check_lxml_major`).
BUILT_FOR_LXML: str = check_lxml_major("_node_walk")

include "_text_walk.pxi"
include "_ancestor_flags.pxi"
include "_metadata_scan.pxi"
include "_dynamic_lca.pxi"
