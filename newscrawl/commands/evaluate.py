"""`newscrawl evaluate`: bag-of-words P/R/F1 of the extractor (and its peers) on datasets."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from newscrawl.evaluation.dataset import read_dataset
from newscrawl.evaluation.errors import EvaluationError
from newscrawl.evaluation.metadata_eval import (
    METADATA_PEER_NAMES,
    build_metadata_json,
    evaluate_metadata,
    format_metadata_report,
    load_metadata_peers,
    newscrawl_extractor,
)
from newscrawl.evaluation.peers import PEER_NAMES, load_peers
from newscrawl.evaluation.report import build_json_report, format_text_report
from newscrawl.evaluation.runner import (
    DEFAULT_FOLDS,
    GROUPINGS,
    MODES,
    EvaluationRunner,
    build_ablation_configs,
)
from newscrawl.extraction import ExtractionConfig

if TYPE_CHECKING:
    from newscrawl.evaluation.out_of_sample import OutOfSampleModels

NAME = "evaluate"
HELP = "Measure extraction quality (bag-of-words P/R/F1) on datasets in the shared layout."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("datasets", nargs="+", type=Path, metavar="DATASET_DIR")
    parser.add_argument(
        "--mode", choices=MODES, default="neighbours",
        help="neighbours: leave-one-out over each cluster; single: no neighbours",
    )
    parser.add_argument("--outputs", type=Path, metavar="DIR",
                        help="write each page's text to DIR/<dataset>/<id>.txt")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the scores as JSON")
    parser.add_argument(
        "--peers", default="", metavar="NAMES",
        help=f"comma-separated peers run on the same pages: {','.join(PEER_NAMES)}",
    )
    parser.add_argument("--no-ablation", action="store_true",
                        help="skip the ablation table (faster)")
    parser.add_argument("--limit", type=int, metavar="N",
                        help="evaluate only the first N pages of each dataset")
    parser.add_argument(
        "--neighbours-by", choices=GROUPINGS, default="cluster",
        help="neighbour mode's groups: the index's clusters, or every page of the same site "
        "(dragnet's site groups)",
    )
    parser.add_argument(
        "--grouped-only", action="store_true",
        help="evaluate only the pages whose group (see --neighbours-by) holds another page, in "
        "either mode: the neighbour gain is then the difference of a single and a neighbours run",
    )
    parser.add_argument(
        "--out-of-sample", action="store_true",
        help="extract each page with a block model trained without its dataset (Big9's eras "
        "count as one) and without its site: the only figures that count. Needs scikit-learn",
    )
    parser.add_argument(
        "--training-datasets", type=Path, metavar="DIR",
        help="where the training sets are (big9-*, chaos, fundus-dev); default: the folder "
        "holding the first DATASET_DIR",
    )
    parser.add_argument(
        "--folds", type=int, default=DEFAULT_FOLDS, metavar="K",
        help="with --out-of-sample, split each dataset's sites into K folds: each fold's model "
        "leaves out only that fold's sites (more training pages, K times the fits). Default "
        f"{DEFAULT_FOLDS}: one model per dataset, without any of its sites",
    )
    parser.add_argument(
        "--metadata", action="store_true",
        help="score title, date, authors and language against the index's gold metadata "
        f"(peers: {','.join(METADATA_PEER_NAMES)}; all of them unless --peers names some)",
    )


def load_out_of_sample_models(training_dir: Path, folds: int) -> OutOfSampleModels | None:
    """Featurise the training sets once for the run; None (after a message) when impossible."""
    try:
        import sklearn  # noqa: F401 - checked up front rather than after featurising

        from newscrawl.evaluation.out_of_sample import OutOfSampleModels
    except ImportError as exc:
        print(
            f"newscrawl evaluate: --out-of-sample needs {exc.name}: pip install 'newscrawl[dev]'",
            file=sys.stderr,
        )
        return None
    print(f"featurising the training sets under {training_dir}", file=sys.stderr)
    models = OutOfSampleModels.from_training_sets(training_dir, ExtractionConfig(), folds)
    if not models.samples:
        print(f"newscrawl evaluate: no training sets under {training_dir}", file=sys.stderr)
        return None
    print(f"featurised in {models.featurise_seconds:.0f} s", file=sys.stderr)
    return models


def describe_models(models: OutOfSampleModels) -> str:
    """The report's line on how the models were chosen."""
    return (
        f"out-of-sample (dataset family left out, {models.folds} site folds; "
        f"{models.fitted_models} models fitted in {models.fit_seconds:.0f} s)"
    )


def run(args: argparse.Namespace) -> int:
    """Evaluate, print the tables and write the optional JSON and outputs."""
    if args.metadata:
        return run_metadata(args)
    try:
        datasets = [read_dataset(path) for path in args.datasets]
        peers = load_peers([name for name in args.peers.split(",") if name.strip()])
    except EvaluationError as exc:
        print(f"newscrawl evaluate: {exc}", file=sys.stderr)
        return 2
    if args.limit is not None and args.limit < 1:
        print("newscrawl evaluate: --limit must be at least 1", file=sys.stderr)
        return 2
    if args.folds < 1:
        print("newscrawl evaluate: --folds must be at least 1", file=sys.stderr)
        return 2
    configs = (
        {"default": ExtractionConfig()} if args.no_ablation else build_ablation_configs()
    )
    models: OutOfSampleModels | None = None
    if args.out_of_sample:
        models = load_out_of_sample_models(
            args.training_datasets or args.datasets[0].resolve().parent, args.folds
        )
        if models is None:
            return 2
    runner = EvaluationRunner(
        mode=args.mode, configs=configs, peers=peers, limit=args.limit, outputs_dir=args.outputs,
        models=models, group_by=args.neighbours_by, grouped_only=args.grouped_only,
    )
    started = time.perf_counter()
    try:
        result = runner.run(datasets)
    except EvaluationError as exc:
        print(f"newscrawl evaluate: {exc}", file=sys.stderr)
        return 2
    if models is not None:
        result.models = describe_models(models)
    print(f"evaluated in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    sys.stdout.write(format_text_report(result))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(build_json_report(result), indent=2) + "\n")
    return 0


def run_metadata(args: argparse.Namespace) -> int:
    """Score newscrawl's metadata and its peers' against the gold metadata of the datasets."""
    names = [name for name in args.peers.split(",") if name.strip()] or list(METADATA_PEER_NAMES)
    if args.limit is not None and args.limit < 1:
        print("newscrawl evaluate: --limit must be at least 1", file=sys.stderr)
        return 2
    try:
        extractors = {"newscrawl": newscrawl_extractor, **load_metadata_peers(names)}
        summaries = evaluate_metadata(list(args.datasets), extractors, limit=args.limit)
    except EvaluationError as exc:
        print(f"newscrawl evaluate: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(format_metadata_report(summaries))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(build_metadata_json(summaries), indent=2) + "\n")
    return 0
