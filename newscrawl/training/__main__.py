"""Retrain the block model from `../shared/datasets` and report site-grouped out-of-sample F1.

    python -m newscrawl.training [--datasets DIR] [--folds 5] [--no-cv]

The model is gradient-boosted trees over `block_features.FEATURE_NAMES`, trained with
scikit-learn and exported to JSON for the numpy evaluator in `block_scorer`.

Provenance: the dev sets are the Big9 (2005, 2009, 2013) and Chaos pages of Utomo and Leu
(`MSVCode/ir-research-data`), normalised as described in `../shared/datasets/README.md`.
Big9 pages are featurised twice: with a template learned from the 9 other pages of their
cluster (leave-one-out, as in neighbour mode) and alone (single-page mode). Chaos pages are
featurised alone. Block labels come from token overlap with the gold text (`block_labels`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from newscrawl.extraction.block_features import FEATURE_NAMES, compute_block_features
from newscrawl.extraction.block_scorer import MODEL_FORMAT, MODEL_FORMAT_VERSION, MODEL_RESOURCE
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.relevance import select_relevant_paragraphs, select_title_keywords
from newscrawl.extraction.static_noise import learn_static_noise, remove_static_noise
from newscrawl.training.block_labels import label_blocks, tokenize
from newscrawl.training.dev_datasets import DEFAULT_DATASETS_DIR, DevPage, read_dataset

DATASETS = ("big9-2005", "big9-2009", "big9-2013", "chaos")
MODEL_DIR = Path(__file__).resolve().parents[1] / "extraction"
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


@dataclass
class PageSample:
    """Features, labels and block texts of one page in one mode."""

    page: DevPage
    mode: str
    features: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    block_texts: list[str]

    @property
    def key(self) -> str:
        return f"{self.page.dataset}/{self.mode}"


def featurise_page(
    page: DevPage, neighbours: list[Document] | None, config: ExtractionConfig
) -> PageSample:
    """Run the stages the way `extract` does and turn the page into labelled block rows."""
    document = parse_document(page.html, url=page.url)
    if neighbours:
        remove_static_noise(document, learn_static_noise(neighbours, config), config)
    remove_dynamic_noise(document, config)
    select_relevant_paragraphs(document, page.title_hint, config)
    keywords = set(select_title_keywords(page.title_hint, config)) if page.title_hint else set()
    features = compute_block_features(document, keywords, config)
    labels = np.asarray(label_blocks(document, page.gold), dtype=np.int64)
    sizes = np.asarray([len(tokenize(s.text)) for s in document.segments], dtype=np.float64)
    # Each page weighs the same; within a page a block weighs by its words, as the metric does.
    weights = sizes / sizes.sum() if sizes.sum() else sizes
    return PageSample(
        page=page,
        mode="neighbours" if neighbours else "single",
        features=features,
        labels=labels,
        weights=weights,
        block_texts=[s.text for s in document.segments],
    )


def build_samples(datasets_dir: Path, config: ExtractionConfig) -> list[PageSample]:
    """Featurise every dev page: Big9 in both modes, Chaos in single-page mode."""
    samples: list[PageSample] = []
    for name in DATASETS:
        directory = datasets_dir / name
        if not directory.is_dir():
            print(f"skipping missing dataset {directory}", file=sys.stderr)
            continue
        pages = list(read_dataset(directory))
        clusters: dict[str, list[tuple[DevPage, Document]]] = {}
        for page in pages:
            clusters.setdefault(page.cluster, []).append((page, parse_document(page.html)))
        for page in pages:
            neighbours = [doc for other, doc in clusters[page.cluster] if other is not page]
            if neighbours:
                samples.append(featurise_page(page, neighbours, config))
            samples.append(featurise_page(page, None, config))
        print(f"featurised {name}: {len(pages)} pages", file=sys.stderr)
    return samples


def score_text(predicted: str, gold: str) -> tuple[float, float, float]:
    """Bag-of-words precision, recall and F1 of one page."""
    p, g = Counter(tokenize(predicted)), Counter(tokenize(gold))
    common = sum((p & g).values())
    precision = common / sum(p.values()) if p else 0.0
    recall = common / sum(g.values()) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def fit_trees(
    rows: np.ndarray, labels: np.ndarray, weights: np.ndarray, monotonic: list[int]
) -> Any:
    """Gradient-boosted trees (scikit-learn is needed only here, at training time)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(
        random_state=0, monotonic_cst=monotonic, **TREE_PARAMETERS
    )
    # Page weights sum to one per page; scale them so leaf-size limits see comparable numbers.
    model.fit(rows, labels, sample_weight=weights * len(weights) / max(weights.sum(), 1e-9))
    return model


def fit_block_model(samples: Sequence[PageSample]) -> Any:
    """The block model, trained on the given pages."""
    return fit_trees(
        np.vstack([s.features for s in samples]),
        np.concatenate([s.labels for s in samples]),
        np.concatenate([s.weights for s in samples]),
        [MONOTONIC.get(name, 0) for name in FEATURE_NAMES],
    )


def predict(model: Any, rows: np.ndarray) -> np.ndarray:
    """Positive-class probabilities, tolerating pages without blocks."""
    return model.predict_proba(rows)[:, 1] if len(rows) else np.zeros(0)


def page_f1(sample: PageSample, scores: np.ndarray, threshold: float) -> float:
    """F1 of the text made of the blocks the scores keep."""
    keep = scores >= threshold
    keep &= sample.features[:, FEATURE_NAMES.index("static_fraction")] < 0.999
    # As the builder does: drop static blocks and verbatim repeats.
    kept = dict.fromkeys(t for t, k in zip(sample.block_texts, keep, strict=True) if k)
    return score_text("\n\n".join(kept), sample.page.gold)[2]


def assign_folds(samples: Sequence[PageSample], folds: int) -> list[int]:
    """Fold of each sample; a site (all its eras and modes) stays within one fold."""
    sites = sorted({s.page.site for s in samples})
    order = np.random.default_rng(0).permutation(len(sites))
    fold_of = {sites[i]: k % folds for k, i in enumerate(order)}
    return [fold_of[s.page.site] for s in samples]


def report_cross_validation(samples: list[PageSample], threshold: float, folds: int) -> None:
    """Out-of-sample F1 by dataset and mode, with whole sites held out in each fold."""
    fold_ids = assign_folds(samples, folds)
    scores: dict[str, list[float]] = {}
    for fold in range(folds):
        model = fit_block_model([s for s, f in zip(samples, fold_ids, strict=True) if f != fold])
        for sample, f in zip(samples, fold_ids, strict=True):
            if f == fold:
                f1 = page_f1(sample, predict(model, sample.features), threshold)
                scores.setdefault(sample.key, []).append(f1)
    print(f"GroupKFold({folds}) by site:", _format(scores))


def report_transfer(samples: list[PageSample], threshold: float) -> None:
    """First pass trained on one corpus and tested on the other (no site overlap)."""
    big9 = [s for s in samples if s.page.dataset.startswith("big9")]
    chaos = [s for s in samples if s.page.dataset == "chaos"]
    for name, train, test in (("chaos -> big9", chaos, big9), ("big9 -> chaos", big9, chaos)):
        if train and test:
            model = fit_block_model(train)
            scores: dict[str, list[float]] = {}
            for sample in test:
                f1 = page_f1(sample, predict(model, sample.features), threshold)
                scores.setdefault(sample.key, []).append(f1)
            print(f"trained {name}:", _format(scores))


def export_model(model: Any, names: Sequence[str], monotonic: dict[str, int], path: Path) -> None:
    """Write the trees as JSON for the numpy evaluator in `block_scorer`."""
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
    data = {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "feature_names": list(names),
        "base_score": float(np.ravel(model._baseline_prediction)[0]),
        # Leaf values already include the shrinkage.
        "learning_rate": 1.0,
        "parameters": TREE_PARAMETERS,
        "monotonic": monotonic,
        "provenance": "python -m newscrawl.training: big9-2005/2009/2013 (neighbour and "
        "single-page mode) and chaos (single-page mode) from ../shared/datasets",
        "trees": trees,
    }
    path.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def _format(scores: dict[str, list[float]]) -> str:
    return "  ".join(f"{key}={np.mean(values):.3f}" for key, values in sorted(scores.items()))


def main(argv: list[str] | None = None) -> int:
    """Featurise the dev sets, cross-validate by site, then train on everything and export."""
    parser = argparse.ArgumentParser(prog="python -m newscrawl.training", description=__doc__)
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS_DIR)
    parser.add_argument("--output-dir", type=Path, default=MODEL_DIR)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--no-cv", action="store_true", help="skip the out-of-sample reports")
    args = parser.parse_args(argv)
    config = ExtractionConfig()
    threshold = config.block_threshold
    samples = build_samples(args.datasets, config)
    if not samples:
        print(f"no datasets found under {args.datasets}", file=sys.stderr)
        return 1
    if not args.no_cv:
        report_transfer(samples, threshold)
        report_cross_validation(samples, threshold, args.folds)
    model = fit_block_model(samples)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    output = args.output_dir / MODEL_RESOURCE
    export_model(model, FEATURE_NAMES, MONOTONIC, output)
    print(f"wrote {output} ({output.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
