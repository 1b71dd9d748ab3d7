# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled twins of the block scoring's loops over strings and arrays: text counts, features, trees."""

# One extension module, its parts included from .pxi files:
#   _text_scan.pxi     word, keyword and character counts of block_features, word_tokens and
#                      block_hints; the language guess's words
#   _feature_rows.pxi  block_features' table of per-block features, bit for bit the numpy one
#   _block_trees.pxi   block_scorer's walk of the model's trees
# Nothing here reads libxml2: only the walk's pieces and segments (`_node_walk.pxd`), strings
# and numpy arrays.

import numpy as np

cimport cython
from cpython.unicode cimport (
    Py_UCS1,
    Py_UCS2,
    Py_UNICODE_ISALNUM,
    Py_UNICODE_ISSPACE,
    Py_UNICODE_ISUPPER,
    PyUnicode_1BYTE_DATA,
    PyUnicode_2BYTE_DATA,
    PyUnicode_4BYTE_DATA,
    PyUnicode_DATA,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
    PyUnicode_READ,
    PyUnicode_READ_CHAR,
    PyUnicode_Substring,
)
from libc.math cimport INFINITY, log1p
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from newscrawl.extraction._node_walk cimport Segment, TextPiece


cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object text)

include "_text_scan.pxi"
include "_feature_rows.pxi"
include "_block_trees.pxi"
