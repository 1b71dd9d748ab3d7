# cython: language_level=3
# The compiled walk's piece and segment types, for the modules that read their fields in C.
# The garbage collector does not trace them (`no_gc`): their fields are strings, numbers and
# lxml elements, which never lead back to a piece or a segment.

cimport cython
cimport lxml.includes.etreepublic as cetree


@cython.no_gc
@cython.final
cdef class TextPiece:
    cdef public str text
    cdef public cetree._Element element
    cdef public bint in_link
    cdef public Py_ssize_t segment


@cython.no_gc
@cython.final
cdef class Segment:
    cdef public Py_ssize_t index
    cdef public cetree._Element block
    cdef public Py_ssize_t first_piece
    cdef public Py_ssize_t last_piece
    cdef public Py_ssize_t node
    cdef public str text
