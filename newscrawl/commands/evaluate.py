"""`newscrawl evaluate`: bag-of-words P/R/F1 of the extractor (and its peers) on datasets."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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
from newscrawl.evaluation.runner import MODES, EvaluationRunner, build_ablation_configs
from newscrawl.extraction import ExtractionConfig

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
        "--metadata", action="store_true",
        help="score title, date, authors and language against the index's gold metadata "
        f"(peers: {','.join(METADATA_PEER_NAMES)}; all of them unless --peers names some)",
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
    configs = (
        {"default": ExtractionConfig()} if args.no_ablation else build_ablation_configs()
    )
    runner = EvaluationRunner(
        mode=args.mode, configs=configs, peers=peers, limit=args.limit, outputs_dir=args.outputs
    )
    try:
        result = runner.run(datasets)
    except EvaluationError as exc:
        print(f"newscrawl evaluate: {exc}", file=sys.stderr)
        return 2
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
