"""Peak RSS of extracting one big page, per page size and shape, against lxml parsing it alone.

Run from the repository root:  python -m bench.extract_memory
Each (shape, size) page is generated once into a temporary folder; each measurement runs in a
fresh Python process that reads the page, extracts it (or only parses it with lxml: the
baseline) and reports its peak resident set size (`ru_maxrss`) and its RSS before starting,
after the imports. Extraction is measured as shipped and with `trim_markup` (scripts and
styles dropped, the element cap) switched off, as it was before issue #18. Shapes, each with
a short article at the top:

- elements: the rest is tiny elements (link lists, nested spans): the element count is highest;
- markup: the rest is inline scripts, styles, long attributes and SVG paths;
- prose: the rest is long paragraphs of text.

Issue #18's target: extracting a 5 MiB page peaks at <= 200 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

SHAPES = ("elements", "markup", "prose")
SIZES = {"100KB": 100 * 1024, "1MB": 1024 * 1024, "5MB": 5 * 1024 * 1024}
# lxml: parse alone (the baseline); untrimmed: extract with `trim_markup` switched off (the
# extraction before issue #18); extract: as shipped.
MODES = ("lxml", "untrimmed", "extract")
TARGET_MB = 200.0
_WORDS = [
    "council", "budget", "river", "harbour", "minister", "vote", "report", "school",
    "transport", "housing", "plan", "market", "energy", "price", "court", "ruling", "weather",
    "storm", "season", "festival", "museum", "library", "station", "bridge",
]


@dataclass(frozen=True)
class Measurement:
    """One page extracted (or parsed) in a fresh process."""

    shape: str
    size: str
    mode: str
    page_bytes: int
    start_mb: float
    peak_mb: float
    truncated: bool | None
    article_chars: int | None


def build_sentence(rng: random.Random, words: int = 14) -> str:
    """A plain sentence of lowercase words."""
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def build_filler(shape: str, rng: random.Random, number: int) -> str:
    """One repeatable block of the page's bulk, in the given shape."""
    if shape == "elements":
        links = "".join(
            f'<li><a href="/t/{number}/{i}">{rng.choice(_WORDS)}</a></li>' for i in range(8)
        )
        return f"<div><ul>{links}</ul><span><b>{number}</b><i>x</i></span></div>\n"
    if shape == "markup":
        data = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(400))
        path = " ".join(f"L{rng.randint(0, 999)} {rng.randint(0, 999)}" for _ in range(60))
        return (
            f"<script>var block{number} = {{id: {number}, data: \"{data}\"}};</script>\n"
            f"<style>.b{number} {{ color: #{number % 0xFFFFFF:06x}; margin: 0 {number % 9}px; }}"
            "</style>\n"
            f'<div class="b{number}" data-state="{data}"><svg><path d="{path}"/></svg></div>\n'
        )
    if shape == "prose":
        return "<p>" + " ".join(build_sentence(rng) for _ in range(12)) + "</p>\n"
    raise ValueError(f"unknown shape {shape!r}")


def build_page(shape: str, size: int, seed: int = 18) -> bytes:
    """A page of about `size` bytes: a short article, then the bulk in the given shape."""
    rng = random.Random(seed)
    article = "".join(
        "<p>" + " ".join(build_sentence(rng) for _ in range(5)) + "</p>\n" for _ in range(8)
    )
    head = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Harbour plan approved</title>"
        "</head><body><article><h1>Harbour plan approved</h1>" + article + "</article>\n"
    )
    tail = "</body></html>\n"
    parts = [head]
    used = len(head) + len(tail)
    number = 0
    while used < size:
        block = build_filler(shape, rng, number)
        parts.append(block)
        used += len(block)
        number += 1
    parts.append(tail)
    return "".join(parts).encode("utf-8")


def current_rss_mb() -> float:
    """This process's resident set size now, from /proc (Linux)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 1024 / 1024


def measure_in_this_process(path: Path, mode: str) -> dict[str, object]:
    """Parse or extract the page at `path` here; called in the fresh child process."""
    import lxml.html

    if mode != "lxml":
        from newscrawl.extraction import extract, page_tree
        from newscrawl.extraction.document import parse_document

        if mode == "untrimmed":
            page_tree.trim_markup = lambda source: (source, False)
    start = current_rss_mb()
    html = path.read_bytes()
    truncated: bool | None = None
    article_chars: int | None = None
    if mode == "lxml":
        lxml.html.document_fromstring(html)
    else:
        truncated = parse_document(html).truncated
        article_chars = len(extract(html, title="Harbour plan approved").text)
    # ru_maxrss is in KiB on Linux.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "start_mb": start,
        "peak_mb": peak,
        "truncated": truncated,
        "article_chars": article_chars,
    }


def measure_page(shape: str, size: str, mode: str, path: Path) -> Measurement:
    """Run one measurement in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-m", "bench.extract_memory", "--child", str(path), mode],
        check=True,
        capture_output=True,
        text=True,
    )
    values = json.loads(result.stdout)
    return Measurement(shape, size, mode, path.stat().st_size, **values)


def run_benchmark(shapes: list[str], sizes: list[str]) -> list[Measurement]:
    """Every (shape, size, mode), each in a fresh process."""
    measurements = []
    with tempfile.TemporaryDirectory(prefix="extract-memory-") as folder:
        for shape in shapes:
            for size in sizes:
                path = Path(folder) / f"{shape}-{size}.html"
                path.write_bytes(build_page(shape, SIZES[size]))
                for mode in MODES:
                    measurements.append(measure_page(shape, size, mode, path))
    return measurements


def format_report(measurements: list[Measurement]) -> str:
    """A table: per page, lxml's peak and extraction's peak (MB), and the truncation flag."""
    lines = [
        "| page | bytes | lxml parse alone: peak MB | extract untrimmed (before): peak MB | "
        "extract: peak MB | extract: start MB | truncated | article chars |",
        "|---|---|---|---|---|---|---|---|",
    ]
    pairs: dict[tuple[str, str], dict[str, Measurement]] = {}
    for measurement in measurements:
        pairs.setdefault((measurement.shape, measurement.size), {})[measurement.mode] = measurement
    for (shape, size), modes in pairs.items():
        lxml_run, before, extract_run = modes["lxml"], modes["untrimmed"], modes["extract"]
        lines.append(
            f"| {shape} {size} | {extract_run.page_bytes:,} | {lxml_run.peak_mb:.0f} | "
            f"{before.peak_mb:.0f} | {extract_run.peak_mb:.0f} | {extract_run.start_mb:.0f} | "
            f"{'yes' if extract_run.truncated else 'no'} | {extract_run.article_chars} |"
        )
    worst = max((m.peak_mb for m in measurements if m.mode == "extract"), default=0.0)
    lines.append(f"\nhighest extraction peak: {worst:.0f} MB (target <= {TARGET_MB:.0f} MB)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table, and optionally write the measurements as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("PAGE", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure_in_this_process(Path(args.child[0]), args.child[1])))
        return 0
    shapes = [shape for shape in args.shapes.split(",") if shape]
    sizes = [size for size in args.sizes.split(",") if size]
    unknown = sorted(set(shapes) - set(SHAPES)) + sorted(set(sizes) - set(SIZES))
    if unknown:
        parser.error(f"unknown shape or size: {', '.join(unknown)}")
    measurements = run_benchmark(shapes, sizes)
    print(format_report(measurements))
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in measurements], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
