# cython: language_level=3
# The compiled walk's piece and segment types, for the modules that read their fields in C.

cimport cython


@cython.no_gc
@cython.final
cdef class TextPiece:
    cdef public str text
    cdef public object element
    cdef public bint in_link
    cdef public Py_ssize_t segment


@cython.no_gc
@cython.final
cdef class Segment:
    cdef public Py_ssize_t index
    cdef public object block
    cdef public Py_ssize_t first_piece
    cdef public Py_ssize_t last_piece
    cdef public Py_ssize_t node
    cdef public str text
