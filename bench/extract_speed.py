"""Per-page extraction speed: newscrawl (neighbour and single mode) against its peers and lxml.

Run from the repository root:  python -m bench.extract_speed ../shared/datasets/big9-2013
It prints median and p95 ms/page for: lxml parse alone, newscrawl single, newscrawl with a
template, trafilatura and readability (when installed); the ratios the issue sets targets for;
template learning time from a full cluster; and the process's peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.html

from newscrawl.evaluation.dataset import Dataset, read_dataset
from newscrawl.evaluation.errors import PeerUnavailableError
from newscrawl.evaluation.peers import PeerExtractor, load_peers
from newscrawl.extraction import SiteTemplate, extract, learn_static_noise


def time_call(function: Callable[..., object], *args: Any, **kwargs: Any) -> float:
    """Milliseconds one call takes."""
    started = time.perf_counter()
    function(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def summarise(values: list[float]) -> dict[str, float]:
    """Median and 95th percentile (nearest rank)."""
    if not values:
        return {"median": float("nan"), "p95": float("nan"), "count": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {"median": statistics.median(ordered), "p95": p95, "count": len(ordered)}


def measure(
    datasets: list[Dataset], peers: list[PeerExtractor], limit: int | None
) -> dict[str, Any]:
    """Time every extractor on every page, interleaved so machine noise hits them alike."""
    # name -> (dataset, page id) -> ms, so that ratios compare the same pages.
    times: dict[str, dict[tuple[str, str], float]] = {
        "lxml parse": {}, "newscrawl single": {}, "newscrawl neighbours": {},
    }
    times.update({peer.name: {} for peer in peers})
    learning: list[float] = []
    for dataset in datasets:
        clusters = dataset.clusters()
        cluster_html = {
            name: [page.read_html() for page in pages] for name, pages in clusters.items()
        }
        # Learning time from the whole cluster (10 pages on Big9), once per cluster.
        for pages in cluster_html.values():
            if len(pages) > 1:
                learning.append(time_call(learn_static_noise, pages))
        for page in dataset.pages[:limit]:
            html = page.read_html()
            neighbours = [
                body for other, body in zip(clusters[page.cluster], cluster_html[page.cluster],
                                            strict=True)
                if other.id != page.id
            ]
            template: SiteTemplate | None = learn_static_noise(neighbours) if neighbours else None
            key = (dataset.name, page.id)
            hints = {"url": page.url, "title": page.title_hint}
            times["lxml parse"][key] = time_call(lxml.html.document_fromstring, html)
            times["newscrawl single"][key] = time_call(extract, html, **hints)
            if template is not None:
                times["newscrawl neighbours"][key] = time_call(
                    extract, html, template=template, **hints
                )
            for peer in peers:
                times[peer.name][key] = time_call(
                    peer.extract_text, html, page.url, page.title_hint
                )
    summary: dict[str, Any] = {
        name: summarise(list(values.values())) for name, values in times.items()
    }
    summary["template learning (full cluster)"] = summarise(learning)
    summary["ratios"] = ratios(times)
    return summary


def ratios(times: dict[str, dict[tuple[str, str], float]]) -> dict[str, float]:
    """Median-time ratios on the same pages: the issue wants <= 4x lxml, <= 0.5x trafilatura."""
    found: dict[str, float] = {}
    for ours in ("newscrawl single", "newscrawl neighbours"):
        for other in ("lxml parse", "trafilatura"):
            common = times[ours].keys() & times.get(other, {}).keys()
            if common:
                mine = statistics.median(times[ours][key] for key in common)
                theirs = statistics.median(times[other][key] for key in common)
                found[f"{ours} / {other} ({len(common)} pages)"] = mine / theirs
    return found


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--peers", default="trafilatura,readability")
    parser.add_argument("--limit", type=int, help="pages per dataset")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    try:
        peers = load_peers([name for name in args.peers.split(",") if name.strip()])
    except PeerUnavailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    summary = measure([read_dataset(path) for path in args.datasets], peers, args.limit)
    found = summary.pop("ratios")
    for name, stats in summary.items():
        print(f"{name:34} median {stats['median']:8.2f} ms   p95 {stats['p95']:8.2f} ms"
              f"   n={stats['count']}")
    for name, value in found.items():
        print(f"{name:48} {value:6.2f}x")
    # ru_maxrss is in KiB on Linux.
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'peak memory (process RSS)':34} {peak_mib:8.1f} MiB")
    if args.json is not None:
        args.json.write_text(
            json.dumps({"times_ms": summary, "ratios": found, "peak_rss_mib": peak_mib}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
