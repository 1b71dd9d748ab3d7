"""The compiled tree walk (`_block_rows.leaf_sums`) sums exactly what the numpy walk sums."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import BlockModel, load_block_model
from tests.extraction.compiled_twins import needs_compiled_loops

pytestmark = needs_compiled_loops

FEATURES = len(FEATURE_NAMES)


def random_model(seed: int, trees: int, depth: int) -> BlockModel:
    """A model of `trees` random trees, each grown to a random depth up to `depth`."""
    rng = np.random.default_rng(seed)
    serialised = []
    for _ in range(trees):
        keys = ("feature", "threshold", "left", "right", "value")
        tree: dict[str, list] = {key: [] for key in keys}

        def grow(level: int, tree: dict[str, list] = tree) -> int:
            node = len(tree["feature"])
            for key in tree:
                tree[key].append(-1 if key != "threshold" and key != "value" else 0.0)
            if level < depth and rng.random() < 0.8:
                tree["feature"][node] = int(rng.integers(FEATURES))
                tree["threshold"][node] = float(rng.normal())
                tree["left"][node] = grow(level + 1)
                tree["right"][node] = grow(level + 1)
            else:
                tree["value"][node] = float(rng.normal() * 10.0 ** rng.integers(-3, 1))
            return node

        grow(0)
        serialised.append(tree)
    return BlockModel.from_dict(
        {
            "format": "newscrawl-block-model",
            "format_version": 1,
            "feature_names": list(FEATURE_NAMES),
            "base_score": 0.1,
            "learning_rate": 0.3,
            "trees": serialised,
        }
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    # Below 8, up to 128 and above: the three ways numpy's pairwise sum adds a row.
    trees=st.sampled_from([1, 2, 7, 8, 9, 16, 80, 127, 128, 129, 300]),
    depth=st.integers(min_value=0, max_value=5),
    rows=st.integers(min_value=1, max_value=50),
)
def test_compiled_sums_equal_the_numpy_walk_bit_for_bit(
    seed: int, trees: int, depth: int, rows: int
) -> None:
    model = random_model(seed, trees, depth)
    data = np.random.default_rng(seed + 1).normal(size=(rows, FEATURES))
    expected = model._leaf_sums_python(data)
    probabilities = 1.0 / (1.0 + np.exp(-(model.base_score + model.learning_rate * expected)))
    assert model.predict_proba(data).tobytes() == probabilities.tobytes()


def test_the_packaged_model_gives_the_numpy_walk_probabilities() -> None:
    model = load_block_model()
    assert model is not None
    rows = np.random.default_rng(3).normal(scale=3.0, size=(400, FEATURES))
    expected = model._leaf_sums_python(rows)
    probabilities = 1.0 / (1.0 + np.exp(-(model.base_score + model.learning_rate * expected)))
    assert model.predict_proba(rows).tobytes() == probabilities.tobytes()
    # Rows in any memory order or dtype are read as C-ordered float64.
    assert model.predict_proba(np.asfortranarray(rows)).tobytes() == probabilities.tobytes()
    assert model.predict_proba(np.zeros((0, FEATURES))).shape == (0,)


def test_a_layout_index_out_of_range_raises_instead_of_reading_past_the_rows() -> None:
    from newscrawl.extraction._block_rows import leaf_sums

    model = random_model(5, 4, 3)
    layout = model._layout
    rows = np.zeros((2, FEATURES))
    arguments = [
        rows,
        layout.root_features_c,
        layout.root_thresholds,
        layout.root_children_c,
        layout.features_c,
        layout.thresholds,
        layout.children_c,
        layout.values,
        model.depth,
    ]
    assert leaf_sums(*arguments).tobytes() == model._leaf_sums_python(rows).tobytes()
    too_far = layout.features_c.copy()
    too_far[0] = FEATURES
    with pytest.raises(IndexError):
        leaf_sums(*arguments[:4], too_far, *arguments[5:])
    no_child = layout.children_c.copy()
    no_child[0] = len(layout.values)
    with pytest.raises(IndexError):
        leaf_sums(*arguments[:6], no_child, *arguments[7:])
    with pytest.raises(IndexError):
        leaf_sums(np.zeros((2, 3)), *arguments[1:])
