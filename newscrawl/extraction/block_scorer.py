"""Evaluate the packaged gradient-boosted block model with numpy (no scikit-learn at runtime)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.errors import ModelFormatError

MODEL_RESOURCE = "block_model.json"
MODEL_FORMAT = "newscrawl-block-model"
MODEL_FORMAT_VERSION = 1


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

    def predict_proba(self, rows: np.ndarray) -> np.ndarray:
        """Probability that each row (block) is article text."""
        count = rows.shape[0]
        if not count:
            return np.zeros(0)
        trees, internal = self.features.shape
        # Each level compares only the node every (row, tree) pair stands on: depth gathers of
        # rows x trees values, rather than comparing every split of every tree up front.
        flat_features = self.features.ravel()
        flat_thresholds = self.thresholds.ravel()
        tree_offsets = np.arange(trees, dtype=np.intp) * internal
        node = np.zeros((count, trees), dtype=np.intp)
        row_offsets = (np.arange(count, dtype=np.intp) * rows.shape[1])[:, None]
        flat_rows = rows.ravel()
        for _ in range(self.depth):
            slot = tree_offsets + node
            values = flat_rows[row_offsets + flat_features[slot]]
            node = 2 * node + 1 + (values > flat_thresholds[slot])
        # Leaf k of tree t sits at t * (internal + 1) + k, and node `internal + k` is leaf k.
        leaf_offsets = np.arange(trees, dtype=np.intp) * (internal + 1) - internal
        leaf_sum = self.leaves.ravel()[leaf_offsets + node].sum(axis=1)
        return 1.0 / (1.0 + np.exp(-(self.base_score + self.learning_rate * leaf_sum)))

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
