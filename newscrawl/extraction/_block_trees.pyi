"""Type stub for the compiled tree walk (_block_trees.pyx)."""

import numpy as np

def leaf_sums(
    rows: np.ndarray,
    root_features: np.ndarray,
    root_thresholds: np.ndarray,
    root_children: np.ndarray,
    features: np.ndarray,
    thresholds: np.ndarray,
    children: np.ndarray,
    values: np.ndarray,
    depth: int,
) -> np.ndarray:
    """Per row, the sum over trees of the leaf it reaches (see `block_scorer._Layout`)."""
