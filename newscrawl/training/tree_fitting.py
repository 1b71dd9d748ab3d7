"""Fit the gradient-boosted block model and turn it into the JSON that `block_scorer` reads.

scikit-learn is needed only here (training and `newscrawl evaluate --out-of-sample`); the
runtime walks the exported trees with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import MODEL_FORMAT, MODEL_FORMAT_VERSION, BlockModel
from newscrawl.training.samples import PageSample

TREE_PARAMETERS: dict[str, Any] = {
    "max_iter": 80,
    "max_depth": 4,
    "learning_rate": 0.2,
    "min_samples_leaf": 100,
    "l2_regularization": 1.0,
    "early_stopping": False,
}
# Signals whose direction is known: more noise evidence never makes a block more likely text.
MONOTONIC = {
    "link_fraction": -1,
    "static_fraction": -1,
    "static_mean_support": -1,
    "dynamic_fraction": -1,
    "ht_relevant": 1,
}


def fit_trees(
    rows: np.ndarray, labels: np.ndarray, weights: np.ndarray, monotonic: list[int]
) -> Any:
    """Gradient-boosted trees, deterministic for given rows (fixed seed, no early stopping)."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
    except ImportError as exc:
        raise RuntimeError(
            "training the block model needs scikit-learn: pip install 'newscrawl[dev]'"
        ) from exc

    model = HistGradientBoostingClassifier(
        random_state=0, monotonic_cst=monotonic, **TREE_PARAMETERS
    )
    # Page weights sum to one per page; scale them so leaf-size limits see comparable numbers.
    model.fit(rows, labels, sample_weight=weights * len(weights) / max(weights.sum(), 1e-9))
    return model


def fit_block_model(samples: Sequence[PageSample]) -> Any:
    """The block model (a scikit-learn estimator), trained on the given pages."""
    return fit_trees(
        np.vstack([s.features for s in samples]),
        np.concatenate([s.labels for s in samples]),
        np.concatenate([s.weights for s in samples]),
        [MONOTONIC.get(name, 0) for name in FEATURE_NAMES],
    )


def predict(model: Any, rows: np.ndarray) -> np.ndarray:
    """Positive-class probabilities, tolerating pages without blocks."""
    return model.predict_proba(rows)[:, 1] if len(rows) else np.zeros(0)


def describe_training(samples: Sequence[PageSample]) -> str:
    """Which sets and modes the model saw, for the model file's provenance."""
    modes: dict[str, set[str]] = {}
    for sample in samples:
        modes.setdefault(sample.page.dataset, set()).add(sample.mode)
    sets = ", ".join(f"{name} ({'+'.join(sorted(m))})" for name, m in sorted(modes.items()))
    return f"python -m newscrawl.training on {sets} from ../shared/datasets"


def model_document(model: Any, provenance: str) -> dict[str, Any]:
    """The trees as the JSON structure `BlockModel.from_dict` reads."""
    trees = []
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        leaf = nodes["is_leaf"].astype(bool)
        trees.append(
            {
                "feature": np.where(leaf, -1, nodes["feature_idx"]).astype(int).tolist(),
                "threshold": [float(t) for t in nodes["num_threshold"]],
                "left": np.where(leaf, 0, nodes["left"]).astype(int).tolist(),
                "right": np.where(leaf, 0, nodes["right"]).astype(int).tolist(),
                "value": [round(float(v), 6) for v in nodes["value"]],
            }
        )
    return {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "feature_names": list(FEATURE_NAMES),
        "base_score": float(np.ravel(model._baseline_prediction)[0]),
        # Leaf values already include the shrinkage.
        "learning_rate": 1.0,
        "parameters": TREE_PARAMETERS,
        "monotonic": MONOTONIC,
        "provenance": provenance,
        "trees": trees,
    }


def train_block_model(samples: Sequence[PageSample]) -> BlockModel:
    """Fit on the samples and return the model as extraction runs it (exported trees)."""
    document = model_document(fit_block_model(samples), describe_training(samples))
    return BlockModel.from_dict(document)
