"""Retrain the block model from `../shared/datasets` and report site-grouped out-of-sample F1.

    python -m newscrawl.training [--datasets DIR] [--folds 5] [--no-cv]

The model is gradient-boosted trees over `block_features.FEATURE_NAMES`, trained with
scikit-learn and exported to JSON for the numpy evaluator in `block_scorer`.

It trains only on the sets whose licences allow it (`dev_datasets.TRAINING_DATASETS`): the
Big9 (2005, 2009, 2013) and Chaos pages of Utomo and Leu (`MSVCode/ir-research-data`) and
fundus-dev (`flairNLP/fundus`, MIT), normalised as `../shared/datasets/README.md` describes.
Every page is featurised alone (single-page mode) and, where its cluster has other pages
(Big9 site-eras, fundus-dev publishers with 2+ pages), also with a template learned from
them (leave-one-out, as in neighbour mode). Block labels come from token overlap with the
gold text (`block_labels`). Training is deterministic: the same pages give the same file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from newscrawl.evaluation.metric import score_bag_of_words
from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import MODEL_RESOURCE
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.training.dev_datasets import DEFAULT_DATASETS_DIR
from newscrawl.training.samples import PageSample, build_samples
from newscrawl.training.tree_fitting import (
    describe_training,
    fit_block_model,
    model_document,
    predict,
)

MODEL_DIR = Path(__file__).resolve().parents[1] / "extraction"


def page_f1(sample: PageSample, scores: np.ndarray, threshold: float) -> float:
    """F1 of the text made of the blocks the scores keep."""
    keep = scores >= threshold
    keep &= sample.features[:, FEATURE_NAMES.index("static_fraction")] < 0.999
    # As the builder does: drop static blocks and verbatim repeats.
    kept = dict.fromkeys(t for t, k in zip(sample.block_texts, keep, strict=True) if k)
    return score_bag_of_words("\n\n".join(kept), sample.page.gold).f1


def assign_folds(samples: Sequence[PageSample], folds: int) -> list[int]:
    """Fold of each sample; a site (all its eras, sets and modes) stays within one fold."""
    sites = sorted({s.site for s in samples})
    order = np.random.default_rng(0).permutation(len(sites))
    fold_of = {sites[i]: k % folds for k, i in enumerate(order)}
    return [fold_of[s.site] for s in samples]


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
    """Leave one dataset family out: train on the others, score the family's pages."""
    for family in sorted({s.family for s in samples}):
        test = [s for s in samples if s.family == family]
        # A page's site is never seen either: other sets' pages of the family's sites go too.
        sites = {s.site for s in test}
        train = [s for s in samples if s.family != family and s.site not in sites]
        if train:
            model = fit_block_model(train)
            scores: dict[str, list[float]] = {}
            for sample in test:
                f1 = page_f1(sample, predict(model, sample.features), threshold)
                scores.setdefault(sample.key, []).append(f1)
            print(f"without {family}:", _format(scores))


def export_model(model: Any, samples: Sequence[PageSample], path: Path) -> None:
    """Write the trees as JSON for the numpy evaluator in `block_scorer`."""
    document = model_document(model, describe_training(samples))
    path.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")


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
    export_model(model, samples, output)
    print(f"wrote {output} ({output.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
