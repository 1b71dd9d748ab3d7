"""Evaluate the packaged gradient-boosted block model with numpy (no scikit-learn at runtime)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import numpy as np

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.errors import ModelFormatError

# The compiled walk of the trees (see compiled_loops): `_leaf_sums_python`'s sums, in C.
_rows = compiled_loops.block_rows
_compiled_leaf_sums = None if _rows is None else _rows.leaf_sums
# Whether the block model walks its trees with the compiled loop.
COMPILED_TREES: bool = _compiled_leaf_sums is not None

MODEL_RESOURCE = "block_model.json"
MODEL_FORMAT = "newscrawl-block-model"
MODEL_FORMAT_VERSION = 1


@dataclass(frozen=True)
class _Layout:
    """The model's trees as flat arrays, laid out once for a vectorised walk.

    All trees' nodes share one index space: node k of tree t (heap order, leaves after the
    internal nodes) is `t * (2 * 2**depth - 1) + k`, so a step is a few gathers.
    """

    root_features: np.ndarray  # (trees,) feature index of each root
    root_thresholds: np.ndarray  # (trees,)
    root_children: np.ndarray  # (trees,) index of each root's left child
    features: np.ndarray  # per node: feature index (0 for leaves)
    thresholds: np.ndarray  # per node: threshold (inf for leaves: they step left)
    children: np.ndarray  # per node: its left child (the right one follows); a leaf itself
    values: np.ndarray  # per node: leaf value (0 for internal nodes)
    # The index arrays as C ints, for the compiled walk.
    root_features_c: np.ndarray
    root_children_c: np.ndarray
    features_c: np.ndarray
    children_c: np.ndarray

    @classmethod
    def of(cls, features: np.ndarray, thresholds: np.ndarray, leaves: np.ndarray) -> _Layout:
        """Lay out padded trees: (trees, internal) splits and (trees, internal + 1) leaves."""
        trees, internal = features.shape
        size = 2 * internal + 1
        own = np.arange(trees * size, dtype=np.intp).reshape(trees, size)
        all_features = np.zeros((trees, size), dtype=np.intp)
        all_features[:, :internal] = features
        all_thresholds = np.full((trees, size), np.inf)
        all_thresholds[:, :internal] = thresholds
        # A leaf's "left child" is itself, so a tree of depth 0 stays on its only leaf.
        children = own.copy()
        children[:, :internal] = own[:, :internal] + np.arange(internal, dtype=np.intp) + 1
        values = np.zeros((trees, size))
        values[:, internal:] = leaves
        layout = cls(
            root_features=np.ascontiguousarray(all_features[:, 0]),
            root_thresholds=np.ascontiguousarray(all_thresholds[:, 0]),
            root_children=np.ascontiguousarray(children[:, 0]),
            features=all_features.ravel(),
            thresholds=all_thresholds.ravel(),
            children=children.ravel(),
            values=values.ravel(),
            root_features_c=np.ascontiguousarray(all_features[:, 0], dtype=np.intc),
            root_children_c=np.ascontiguousarray(children[:, 0], dtype=np.intc),
            features_c=np.ascontiguousarray(all_features.ravel(), dtype=np.intc),
            children_c=np.ascontiguousarray(children.ravel(), dtype=np.intc),
        )
        # The loaded model is shared by every page: its arrays must never change.
        for array in vars(layout).values():
            array.setflags(write=False)
        return layout


@dataclass(frozen=True)
class BlockModel:
    """Additive regression trees over `FEATURE_NAMES`; the score is a log-odds sum.

    Trees are padded to complete binary trees of one depth so that every row walks every tree
    in lockstep: `depth` vectorised steps instead of a Python loop per tree.
    """

    base_score: float
    learning_rate: float
    depth: int
    features: np.ndarray  # (trees, 2**depth - 1) feature index of each internal node
    thresholds: np.ndarray  # (trees, 2**depth - 1)
    leaves: np.ndarray  # (trees, 2**depth) leaf values
    # Derived from the three arrays above once, not on every call.
    _layout: _Layout = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_layout", _Layout.of(self.features, self.thresholds, self.leaves))

    def predict_proba(self, rows: np.ndarray) -> np.ndarray:
        """Probability that each row (block) is article text."""
        if not rows.shape[0]:
            return np.zeros(0)
        if _compiled_leaf_sums is None:
            leaf_sum = self._leaf_sums_python(rows)
        else:
            layout = self._layout
            leaf_sum = _compiled_leaf_sums(
                np.ascontiguousarray(rows, dtype=np.float64),
                layout.root_features_c,
                layout.root_thresholds,
                layout.root_children_c,
                layout.features_c,
                layout.thresholds,
                layout.children_c,
                layout.values,
                self.depth,
            )
        return 1.0 / (1.0 + np.exp(-(self.base_score + self.learning_rate * leaf_sum)))

    def _leaf_sums_python(self, rows: np.ndarray) -> np.ndarray:
        """Per row, the sum of the leaves it reaches: the reference for `_block_rows.leaf_sums`."""
        count = rows.shape[0]
        layout = self._layout
        # Each level compares only the node every (row, tree) pair stands on: depth gathers of
        # rows x trees values, rather than comparing every split of every tree up front. Every
        # row starts at the roots, whose features are columns: the first level needs no gather.
        # `take` keeps rows x trees in C order (fancy indexing would not): the leaf sum's
        # rounding depends on the memory order it adds in.
        roots = rows.take(layout.root_features, axis=1)
        node = layout.root_children + (roots > layout.root_thresholds)
        row_offsets = (np.arange(count, dtype=np.intp) * rows.shape[1])[:, None]
        flat_rows = rows.ravel()
        # `take` gathers in about half the time of fancy indexing at these sizes.
        features = layout.features
        thresholds = layout.thresholds
        children = layout.children
        for _ in range(self.depth - 1):
            cells = features.take(node)
            np.add(cells, row_offsets, out=cells)
            right = flat_rows.take(cells) > thresholds.take(node)
            node = children.take(node)
            np.add(node, right, out=node)
        return layout.values.take(node).sum(axis=1)

    @classmethod
    def from_dict(cls, data: dict, feature_names: tuple[str, ...] = FEATURE_NAMES) -> BlockModel:
        """Build from the JSON structure written by the training script."""
        if data.get("format") != MODEL_FORMAT or data.get("format_version") != MODEL_FORMAT_VERSION:
            raise ModelFormatError("block model has an unknown format or version")
        if tuple(data.get("feature_names", ())) != feature_names:
            raise ModelFormatError("block model was trained on different features; retrain it")
        try:
            trees = data["trees"]
            depth = max(_tree_depth(tree, 0) for tree in trees)
            padded = [_pad_tree(tree, depth) for tree in trees]
            return cls(
                base_score=float(data["base_score"]),
                learning_rate=float(data["learning_rate"]),
                depth=depth,
                features=np.asarray([p[0] for p in padded], dtype=np.int64),
                thresholds=np.asarray([p[1] for p in padded], dtype=np.float64),
                leaves=np.asarray([p[2] for p in padded], dtype=np.float64),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ModelFormatError(f"block model trees are malformed: {exc}") from exc


def _tree_depth(tree: dict, node: int) -> int:
    """Depth of the subtree under `node` (a leaf has depth 0)."""
    if tree["feature"][node] < 0:
        return 0
    return 1 + max(_tree_depth(tree, tree["left"][node]), _tree_depth(tree, tree["right"][node]))


def _pad_tree(tree: dict, depth: int) -> tuple[list[int], list[float], list[float]]:
    """Lay a tree out as a complete tree in heap order; a shallow leaf fills its whole span."""
    internal = 2**depth - 1
    features = [0] * internal
    thresholds = [np.inf] * internal
    leaves = [0.0] * (2**depth)

    def place(node: int, slot: int, level: int) -> None:
        if tree["feature"][node] < 0:
            # Every descendant slot goes left (x <= inf) and lands on this leaf's value.
            span = 2 ** (depth - level)
            first = slot
            for _ in range(depth - level):
                first = 2 * first + 1
            for k in range(span):
                leaves[first - internal + k] = float(tree["value"][node])
            return
        features[slot] = int(tree["feature"][node])
        thresholds[slot] = float(tree["threshold"][node])
        place(tree["left"][node], 2 * slot + 1, level + 1)
        place(tree["right"][node], 2 * slot + 2, level + 1)

    place(0, 0, 0)
    return features, thresholds, leaves


@cache
def load_block_model() -> BlockModel | None:
    """The packaged first-pass model, or None when it has not been trained yet."""
    return _load_model(MODEL_RESOURCE, FEATURE_NAMES)


def _load_model(name: str, feature_names: tuple[str, ...]) -> BlockModel | None:
    resource = resources.files("newscrawl.extraction").joinpath(name)
    if not resource.is_file():
        return None
    try:
        data = json.loads(resource.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ModelFormatError(f"{name} is not valid JSON: {exc}") from exc
    return BlockModel.from_dict(data, feature_names)
