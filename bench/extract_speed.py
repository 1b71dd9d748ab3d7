"""Per-page extraction speed: newscrawl (neighbour and single mode) against its peers and lxml.

Run from the repository root:  python -m bench.extract_speed ../shared/datasets/big9-2013
It prints median and p95 ms/page for: lxml parse alone, lxml parse plus one Python pass over
every element's text (a second floor), newscrawl single, newscrawl with a template,
trafilatura and readability (when installed); every contender's median ratio to the lxml
parse floor and to trafilatura on the same pages (issue #6: <= 3x lxml, <= 0.5x trafilatura);
template learning time per template; and the process's peak memory.
Each page's time is its fastest of `--repeat` (3) interleaved rounds. Each timed call pays for
merging the memory it freed and not for what the call before it freed (see `Timer`;
`--no-settle` times calls bare). `--stages` adds each extraction stage's median time (one
round), `--plot FILE.png` draws the peers side by side (needs matplotlib, the `bench` extra).
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
from typing import Any, TypeVar

import lxml.etree
import lxml.html

from newscrawl.evaluation.dataset import Dataset, read_dataset
from newscrawl.evaluation.errors import PeerUnavailableError
from newscrawl.evaluation.peers import PeerExtractor, load_peers
from newscrawl.extraction import (
    ExtractionConfig,
    SiteTemplate,
    compiled_loops,
    extract,
    learn_static_noise,
)
from newscrawl.extraction.builder import build_article
from newscrawl.extraction.document import parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.metadata import extract_metadata
from newscrawl.extraction.relevance import select_relevant_paragraphs
from newscrawl.extraction.static_noise import remove_static_noise

LXML = "lxml parse"
WALK = "lxml parse + text walk"
SINGLE = "newscrawl single"
NEIGHBOURS = "newscrawl neighbours"
TRAFILATURA = "trafilatura"
# Issue #6 targets, drawn on the plot.
LXML_TARGET = 3.0
TRAFILATURA_TARGET = 0.5


T = TypeVar("T")
# A request this large makes glibc merge the small blocks freed so far (see `Timer`).
_SETTLE_BYTES = 65536


def settle_allocator() -> None:
    """Make the C allocator merge the small blocks freed so far, now."""
    bytes(_SETTLE_BYTES)


class Timer:
    """Times calls; with `settle`, each call pays for merging the memory it freed, and only that.

    glibc keeps freed small blocks (lxml tree nodes, most of a parsed page) in "fast bins" and
    merges them only when a later request of 1 KiB or more arrives. Timed back to back, the
    first such request of a contender pays for what the contenders before it freed: here, after
    three lxml parses of another page, making a list of 2,000 ints took 120 us instead of 23 us,
    and the block model's 63 us call 186 us. Settling before each call (untimed) and after it
    (timed) bills every contender for its own frees, as a process running one extractor is.
    Without `settle` the calls are timed bare, as this bench did before.
    """

    def __init__(self, *, settle: bool) -> None:
        self.settle = settle

    def __call__(self, function: Callable[..., object], *args: Any, **kwargs: Any) -> float:
        """Milliseconds one call takes, its result freed within."""
        if self.settle:
            settle_allocator()
        started = time.perf_counter()
        function(*args, **kwargs)
        if self.settle:
            settle_allocator()
        return (time.perf_counter() - started) * 1000

    def keeping(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[float, T]:
        """Milliseconds one call takes, and its result, which the caller keeps."""
        if self.settle:
            settle_allocator()
        started = time.perf_counter()
        result = function(*args, **kwargs)
        if self.settle:
            settle_allocator()
        return (time.perf_counter() - started) * 1000, result


def parse_and_walk(html: str | bytes) -> int:
    """Parse, then read every element's text and tail once: what any tree walk costs at least.

    This is not a target, only a second floor: the extra time over `lxml parse` is what one
    pass of Python over the page's elements costs before any extraction logic.
    """
    characters = 0
    for element in lxml.html.document_fromstring(html).iter():
        characters += len(element.text or "") + len(element.tail or "")
    return characters


def time_stages(
    html: str | bytes,
    *,
    url: str | None,
    title: str | None,
    template: SiteTemplate | None,
    time_call: Timer,
) -> dict[str, float]:
    """Milliseconds of each stage of one `extract` call, run stage by stage as `extract` does."""
    config = ExtractionConfig()
    found: dict[str, float] = {}
    found["parse and text walk"], document = time_call.keeping(parse_document, html, url=url)
    if template is not None:
        found["static noise"] = time_call(remove_static_noise, document, template, config)
    found["dynamic noise"] = time_call(remove_dynamic_noise, document, config)
    found["title relevance"] = time_call(select_relevant_paragraphs, document, title, config)
    # build_article reads the metadata itself; timing it apart shows its share of the build.
    found["metadata (part of build)"] = time_call(extract_metadata, document.tree, url)
    found["build article"] = time_call(build_article, document, title=title, config=config)
    return found


def summarise(values: list[float]) -> dict[str, float]:
    """Median and 95th percentile (nearest rank)."""
    if not values:
        return {"median": float("nan"), "p95": float("nan"), "count": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {"median": statistics.median(ordered), "p95": p95, "count": len(ordered)}


def measure(
    datasets: list[Dataset],
    peers: list[PeerExtractor],
    limit: int | None,
    *,
    stages: bool = False,
    repeat: int = 1,
    settle: bool = True,
) -> dict[str, Any]:
    """Time every extractor on every page, interleaved so machine noise hits them alike."""
    time_call = Timer(settle=settle)
    # name -> (dataset, page id) -> ms, so that ratios compare the same pages.
    times: dict[str, dict[tuple[str, str], float]] = {
        LXML: {},
        WALK: {},
        SINGLE: {},
        NEIGHBOURS: {},
    }
    stage_times: dict[str, dict[str, list[float]]] = {SINGLE: {}, NEIGHBOURS: {}}
    times.update({peer.name: {} for peer in peers})
    full_cluster: list[float] = []
    leave_one_out: list[float] = []
    for dataset in datasets:
        clusters = dataset.clusters()
        cluster_html = {
            name: [page.read_html() for page in pages] for name, pages in clusters.items()
        }
        # Learning time from the whole cluster (10 pages on Big9), once per cluster.
        for pages in cluster_html.values():
            if len(pages) > 1:
                full_cluster.append(time_call(learn_static_noise, pages))
        for page in dataset.pages[:limit]:
            html = page.read_html()
            neighbours = [
                body
                for other, body in zip(
                    clusters[page.cluster], cluster_html[page.cluster], strict=True
                )
                if other.id != page.id
            ]
            template: SiteTemplate | None = None
            if neighbours:
                learning, template = time_call.keeping(learn_static_noise, neighbours)
                leave_one_out.append(learning)
            key = (dataset.name, page.id)
            hints = {"url": page.url, "title": page.title_hint}
            contenders: list[tuple[str, Callable[..., object], tuple[Any, ...], dict[str, Any]]]
            contenders = [
                (LXML, lxml.html.document_fromstring, (html,), {}),
                (WALK, parse_and_walk, (html,), {}),
                (SINGLE, extract, (html,), hints),
            ]
            if template is not None:
                contenders.append((NEIGHBOURS, extract, (html,), {**hints, "template": template}))
            contenders += [
                (peer.name, peer.extract_text, (html, page.url, page.title_hint), {})
                for peer in peers
            ]
            # Each page's fastest of `repeat` interleaved rounds: a preempted call on a busy
            # machine only ever makes a time longer, so the minimum is the steadiest estimate.
            for _ in range(repeat):
                for name, function, args, kwargs in contenders:
                    ms = time_call(function, *args, **kwargs)
                    times[name][key] = min(ms, times[name].get(key, ms))
            if stages:
                for mode, mode_template in ((SINGLE, None), (NEIGHBOURS, template)):
                    if mode == NEIGHBOURS and template is None:
                        continue
                    for stage, ms in time_stages(
                        html, template=mode_template, time_call=time_call, **hints
                    ).items():
                        stage_times[mode].setdefault(stage, []).append(ms)
    return {
        "times": {name: summarise(list(values.values())) for name, values in times.items()},
        "stages": {
            mode: {stage: summarise(values) for stage, values in found.items()}
            for mode, found in stage_times.items()
            if found
        },
        "learning": {
            "template learning (full cluster)": summarise(full_cluster),
            "template learning (neighbours of a page)": summarise(leave_one_out),
        },
        "ratios": ratios(times),
    }


def ratios(times: dict[str, dict[tuple[str, str], float]]) -> dict[str, dict[str, Any]]:
    """Each contender's median over the same pages as the floor's / trafilatura's median."""
    found: dict[str, dict[str, Any]] = {}
    for ours in times:
        for other in (LXML, TRAFILATURA):
            if ours == other or other not in times:
                continue
            common = times[ours].keys() & times[other].keys()
            if not common:
                continue
            mine = statistics.median(times[ours][key] for key in common)
            theirs = statistics.median(times[other][key] for key in common)
            found[f"{ours} / {other}"] = {
                "contender": ours,
                "reference": other,
                "ratio": mine / theirs,
                "pages": len(common),
            }
    return found


def plot_summary(summary: dict[str, Any], path: Path) -> None:
    """Bar chart of every contender's median and p95, and of its ratios to the references."""
    # Imported here: matplotlib is optional (the `bench` extra) and slow to import.
    import matplotlib

    matplotlib.use("Agg")  # files only: never needs a display
    import matplotlib.pyplot as plt

    names = [name for name, stats in summary["times"].items() if stats["count"]]
    medians = [summary["times"][name]["median"] for name in names]
    p95s = [summary["times"][name]["p95"] for name in names]
    figure, (times_axis, ratio_axis) = plt.subplots(1, 2, figsize=(13, 5))
    positions = range(len(names))
    times_axis.bar([p - 0.2 for p in positions], medians, width=0.4, label="median")
    times_axis.bar([p + 0.2 for p in positions], p95s, width=0.4, label="p95")
    times_axis.set_xticks(list(positions), names, rotation=25, ha="right")
    times_axis.set_ylabel("ms per page")
    times_axis.set_title("Extraction time per page")
    times_axis.legend()
    found = summary["ratios"]
    for shift, colour, reference, target in (
        (-0.2, "C0", LXML, LXML_TARGET),
        (0.2, "C1", TRAFILATURA, TRAFILATURA_TARGET),
    ):
        rows = [row for row in found.values() if row["reference"] == reference]
        ratio_axis.bar(
            [names.index(row["contender"]) + shift for row in rows],
            [row["ratio"] for row in rows],
            width=0.4,
            color=colour,
            label=f"/ {reference} (newscrawl target {target:g}x, dashed)",
        )
        ratio_axis.axhline(target, color=colour, linestyle="--", linewidth=1)
    ratio_axis.set_xticks(list(positions), names, rotation=25, ha="right")
    ratio_axis.set_yscale("log")  # the floor ratios and the trafilatura ratios differ 100-fold
    ratio_axis.set_ylabel("median ratio on the same pages (log)")
    ratio_axis.set_title("Ratio to the lxml parse floor and to trafilatura")
    ratio_axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def print_summary(summary: dict[str, Any], peak_mib: float) -> None:
    """The table: times, ratios, learning, memory."""
    for name, stats in {**summary["times"], **summary["learning"]}.items():
        print(
            f"{name:42} median {stats['median']:8.2f} ms   p95 {stats['p95']:8.2f} ms"
            f"   n={stats['count']}"
        )
    for name, row in summary["ratios"].items():
        print(f"{name:42} {row['ratio']:6.2f}x   ({row['pages']} pages)")
    for mode, found in summary["stages"].items():
        print(f"stages of {mode}:")
        for stage, stats in found.items():
            print(f"  {stage:40} median {stats['median']:8.2f} ms   p95 {stats['p95']:8.2f} ms")
    # ru_maxrss is in KiB on Linux.
    print(f"{'peak memory (process RSS)':42} {peak_mib:8.1f} MiB")


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (and JSON with --json, a PNG with --plot)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--peers", default="trafilatura,readability")
    parser.add_argument("--limit", type=int, help="pages per dataset")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plot", type=Path, help="write a PNG comparing the contenders")
    parser.add_argument(
        "--stages", action="store_true", help="also time each extraction stage on its own"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="time each page this often, keep the fastest"
    )
    parser.add_argument(
        "--no-settle",
        dest="settle",
        action="store_false",
        help="time calls bare, so each may pay for merging memory the previous one freed",
    )
    args = parser.parse_args(argv)
    try:
        peers = load_peers([name for name in args.peers.split(",") if name.strip()])
    except PeerUnavailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    summary = measure(
        [read_dataset(path) for path in args.datasets],
        peers,
        args.limit,
        stages=args.stages,
        repeat=max(1, args.repeat),
        settle=args.settle,
    )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    reason = compiled_loops.PURE_PYTHON_REASON
    loops = "compiled" if compiled_loops.COMPILED else f"pure Python ({reason})"
    print(f"{'extraction loops':42} {loops}")
    print_summary(summary, peak_mib)
    if args.json is not None:
        report = {**summary, "peak_rss_mib": peak_mib, "compiled_loops": compiled_loops.COMPILED}
        args.json.write_text(json.dumps(report, indent=2))
    if args.plot is not None:
        try:
            plot_summary(summary, args.plot)
        except ImportError:
            print("--plot needs matplotlib: pip install -e '.[bench]'", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
