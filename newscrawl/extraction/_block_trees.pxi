# Included by _block_rows.pyx: the block model's tree walk
# (`block_scorer.BlockModel._leaf_sums_python`).
# numpy's walk is a few gathers over rows x trees arrays per level: at a page's size (a few
# hundred rows, 80 trees of depth 4) their overhead, not the arithmetic, is the cost. This walks
# each (row, tree) pair to its leaf in C and adds the leaves in numpy's own order, so the sums,
# and so the probabilities, are bit for bit those of the numpy walk.


cdef extern from *:
    """
    /* Eight trees walked side by side: their walks are independent chains of loads that the
       CPU overlaps, where one tree at a time waits on every load before its next level. Named
       variables, not an array, so that the nodes stay in registers. */
    #define NC_ROOT(k) n##k = root_children[first + k] \\
        + (row[root_features[first + k]] > root_thresholds[first + k])
    #define NC_STEP(k) n##k = children[n##k] + (row[features[n##k]] > thresholds[n##k])
    static inline void nc_walk_eight(
        const double *row, const int *root_features, const double *root_thresholds,
        const int *root_children, const int *features, const double *thresholds,
        const int *children, const double *values, int depth, Py_ssize_t first,
        double *leaves
    ) {
        Py_ssize_t n0, n1, n2, n3, n4, n5, n6, n7;
        int level;
        NC_ROOT(0); NC_ROOT(1); NC_ROOT(2); NC_ROOT(3);
        NC_ROOT(4); NC_ROOT(5); NC_ROOT(6); NC_ROOT(7);
        for (level = 1; level < depth; level++) {
            NC_STEP(0); NC_STEP(1); NC_STEP(2); NC_STEP(3);
            NC_STEP(4); NC_STEP(5); NC_STEP(6); NC_STEP(7);
        }
        leaves[first] = values[n0]; leaves[first + 1] = values[n1];
        leaves[first + 2] = values[n2]; leaves[first + 3] = values[n3];
        leaves[first + 4] = values[n4]; leaves[first + 5] = values[n5];
        leaves[first + 6] = values[n6]; leaves[first + 7] = values[n7];
    }
    """
    void nc_walk_eight(
        const double* row, const int* root_features, const double* root_thresholds,
        const int* root_children, const int* features, const double* thresholds,
        const int* children, const double* values, int depth, Py_ssize_t first,
        double* leaves,
    ) noexcept nogil


cdef enum:
    # numpy's pairwise summation: 8 accumulators up to this many values, halves above it.
    PAIRWISE_BLOCK = 128


cdef double _pairwise_sum(const double* values, Py_ssize_t count) noexcept nogil:
    """Sum as numpy's `add.reduce` does on a contiguous row (its `pairwise_sum`)."""
    cdef double r[8]
    cdef double total
    cdef Py_ssize_t index
    cdef Py_ssize_t half
    if count < 8:
        total = 0.0
        for index in range(count):
            total += values[index]
        return total
    if count <= PAIRWISE_BLOCK:
        for index in range(8):
            r[index] = values[index]
        index = 8
        while index < count - count % 8:
            r[0] += values[index]
            r[1] += values[index + 1]
            r[2] += values[index + 2]
            r[3] += values[index + 3]
            r[4] += values[index + 4]
            r[5] += values[index + 5]
            r[6] += values[index + 6]
            r[7] += values[index + 7]
            index += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while index < count:
            total += values[index]
            index += 1
        return total
    half = count // 2
    half -= half % 8
    return _pairwise_sum(values, half) + _pairwise_sum(values + half, count - half)


cdef int _check_indices(const int[::1] indices, Py_ssize_t size) except -1:
    """IndexError unless every index is in [0, size)."""
    cdef Py_ssize_t index
    for index in range(indices.shape[0]):
        if not 0 <= indices[index] < size:
            raise IndexError(f"tree layout index {indices[index]} out of range {size}")
    return 0


cdef int _check_steps(
    const int[::1] children, const double[::1] thresholds, Py_ssize_t size
) except -1:
    """IndexError unless each step, left or (where a split can send it) right, stays in range."""
    cdef Py_ssize_t index
    cdef Py_ssize_t right
    if children.shape[0] != thresholds.shape[0]:
        raise ValueError("tree layout arrays differ in length")
    for index in range(children.shape[0]):
        # A leaf's threshold is +inf: no value goes right of it.
        right = children[index] + (1 if thresholds[index] < INFINITY else 0)
        if not 0 <= children[index] or not right < size:
            raise IndexError(f"tree layout child {children[index]} out of range {size}")
    return 0


def leaf_sums(
    const double[:, ::1] rows,
    const int[::1] root_features,
    const double[::1] root_thresholds,
    const int[::1] root_children,
    const int[::1] features,
    const double[::1] thresholds,
    const int[::1] children,
    const double[::1] values,
    int depth,
):
    """Per row, the sum over trees of the leaf it reaches (see `block_scorer._Layout`)."""
    cdef Py_ssize_t count = rows.shape[0]
    cdef Py_ssize_t trees = root_features.shape[0]
    cdef Py_ssize_t row
    cdef Py_ssize_t tree
    cdef Py_ssize_t node
    cdef int level
    cdef double* leaves
    cdef const double* values_of_row
    sums = np.empty(count)
    cdef double[::1] out = sums
    if count == 0 or trees == 0:
        sums[:] = 0.0
        return sums
    # The walk reads without bounds checks: a malformed layout must fail here, as numpy's would.
    _check_indices(root_features, rows.shape[1])
    _check_indices(features, rows.shape[1])
    _check_steps(root_children, root_thresholds, values.shape[0])
    _check_steps(children, thresholds, values.shape[0])
    if features.shape[0] != values.shape[0] or thresholds.shape[0] != values.shape[0]:
        raise ValueError("tree layout arrays differ in length")
    if root_thresholds.shape[0] != trees or root_children.shape[0] != trees:
        raise ValueError("tree root arrays differ in length")
    leaves = <double*>malloc(trees * sizeof(double))
    if leaves is NULL:
        raise MemoryError()
    try:
        for row in range(count):
            values_of_row = &rows[row, 0]
            for tree in range(0, trees - trees % 8, 8):
                nc_walk_eight(
                    values_of_row, &root_features[0], &root_thresholds[0], &root_children[0],
                    &features[0], &thresholds[0], &children[0], &values[0], depth, tree, leaves,
                )
            for tree in range(trees - trees % 8, trees):
                node = root_children[tree] + (
                    values_of_row[root_features[tree]] > root_thresholds[tree]
                )
                for level in range(depth - 1):
                    node = children[node] + (values_of_row[features[node]] > thresholds[node])
                leaves[tree] = values[node]
            out[row] = _pairwise_sum(leaves, trees)
    finally:
        free(leaves)
    return sums
