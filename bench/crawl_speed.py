"""End-to-end crawl throughput: newscrawl into SQLite and PostgreSQL against bare Scrapy.

Run from the repository root:

    .venv/bin/python -m bench.crawl_speed --pages 5000 --scales 1000,5000,20000 \\
        --json crawl-speed.json --plot crawl-speed.png

A sized demo network (bench.demo_network) is served on loopback by its own process. Every
crawl is its own `python -m scrapy crawl` process, reaching the same pages through the
category feeds (rss spider) and through the sitemaps (sitemap spider):

- bare: the same spider with ITEM_PIPELINES={}, EXTENSIONS={} and no feed state (download only);
- sqlite: newscrawl into a fresh SQLite file;
- postgresql: newscrawl into a fresh schema of --postgres-url.

It prints pages per second (the crawl's elapsed_time_seconds stat, spider open to close), the
newscrawl/bare ratio (target: SQLite >= 0.5), peak RSS of the crawl process, and checks that
every page served became a stored article. --scales repeats the SQLite feeds crawl at each size
and compares the per-page time of the largest to the smallest (target <= 1.10). --profile
records one SQLite crawl under py-spy and prints its hot spots per thread (reactor, database
threads, child processes such as an extraction pool). -s KEY=VALUE goes to every crawl.
--repeat N runs every configuration N times, interleaved, and reports the fastest run of each.
--workers 1,2,4 also runs N workers sharing Redis and PostgreSQL (bench.crawl_workers).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from newscrawl.stats_keys import PAGE_FETCHED_KEYS, PEAK_MEMORY_RSS_BYTES

REPO_ROOT = Path(__file__).resolve().parents[1]
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MODES = ("feeds", "sitemaps")
STORES = ("bare", "sqlite", "postgresql")
SPIDERS = {"feeds": "rss", "sitemaps": "sitemap"}
RATIO_TARGET = 0.5
SCALING_TARGET = 1.10
# Environment variables that would point a crawl at another store or frontier.
# py-spy --subprocesses starts every stack with one "process PID:command" frame per ancestor.
PROCESS_FRAME = re.compile(r"(?:^|;)process (\d+):")
SCRUBBED_ENVIRONMENT = ("NEWSCRAWL_DATABASE_URL", "NEWSCRAWL_REDIS_URL")
# The modules of the neighbour buffer: the pipeline adapter and what it delegates to.
NEIGHBOUR_BUFFER_MODULES = (
    "neighbour_buffer", "page_admission", "group_flush", "template_learning", "template_cache",
    "page_ownership",
)
# Stack frames of the profile that name the parts of the crawl the lead wants to see.
PROFILE_COMPONENTS = (
    *(
        (f"pipelines{separator}{module}", "NeighbourBufferPipeline")
        for module in NEIGHBOUR_BUFFER_MODULES
        for separator in "./"
    ),
    ("pipelines.static_noise", "StaticNoisePipeline"),
    ("pipelines.dynamic_noise", "DynamicNoisePipeline"),
    ("pipelines.title_relevance", "TitleRelevancePipeline"),
    ("pipelines.sql_storage", "SqlStoragePipeline"),
    ("pipelines/static_noise", "StaticNoisePipeline"),
    ("pipelines/dynamic_noise", "DynamicNoisePipeline"),
    ("pipelines/title_relevance", "TitleRelevancePipeline"),
    ("pipelines/sql_storage", "SqlStoragePipeline"),
    ("newscrawl/extraction/", "extraction core"),
    ("sqlalchemy/", "SQLAlchemy"),
    ("scrapy/core/downloader", "Scrapy downloader"),
    ("scrapy/core/scraper", "Scrapy scraper"),
    ("scrapy/http/", "Scrapy http"),
    ("twisted/", "Twisted"),
    ("spiders/", "spiders"),
    ("feedparser/", "feedparser"),
)


@dataclass
class CrawlRun:
    """The figures of one crawl process."""

    mode: str
    store: str
    network_pages: int
    served: int
    fetched: int
    stored: int | None
    failed_pages: int | None
    pending_pages: int | None
    elapsed_seconds: float
    active_seconds: float
    wall_seconds: float
    pages_per_second: float
    active_pages_per_second: float
    per_page_ms: float
    peak_rss_mb: float | None
    # The crawl process and its children (an extraction pool), sampled every half second.
    peak_tree_rss_mb: float | None
    returncode: int
    lost: int
    command: list[str] = field(repr=False)
    log: str = ""
    # CPU seconds (user + system) of the crawl process and the children it waited for: less
    # sensitive than pages/s to what the other users of a shared machine run meanwhile.
    cpu_seconds: float | None = None
    # The crawl process's own CPU seconds (every thread, no children): what the crawl's
    # pipelines and storage cost, apart from the extraction worker's share.
    process_cpu_seconds: float | None = None


class NetworkProcess:
    """The benchmark network served by `python -m bench.demo_network` in a child process."""

    def __init__(self, pages: int, seed: int) -> None:
        command = [
            sys.executable,
            "-m",
            "bench.demo_network",
            "--pages",
            str(pages),
            "--seed",
            str(seed),
        ]
        self.process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=build_environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        description = self._read_line()
        self.base_urls: list[str] = description["base_urls"]
        self.feed_lines: list[str] = description["feed_lines"]
        self.articles: int = description["articles"]
        self.bytes_per_page: int = description["bytes_per_page"]

    def _read_line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the demo network process ended before answering")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _ask(self, command: str) -> dict[str, int]:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._read_line()

    def reset(self) -> None:
        """Zero the served-page counters."""
        self._ask("reset")

    def served(self) -> dict[str, int]:
        """Pages served since the last reset: `articles` and `other`."""
        return self._ask("stats")

    def close(self) -> None:
        """Close stdin, which stops the server, and wait for it."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@contextmanager
def serve_network(pages: int, seed: int) -> Iterator[NetworkProcess]:
    """Serve a network of `pages` article pages for the duration of the block."""
    network = NetworkProcess(pages, seed)
    try:
        yield network
    finally:
        network.close()


def build_environment() -> dict[str, str]:
    """The environment of child processes: this repository importable, no stray store."""
    environment = {k: v for k, v in os.environ.items() if k not in SCRUBBED_ENVIRONMENT}
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    return environment


@contextmanager
def open_store(store: str, work_dir: Path, postgres_url: str) -> Iterator[str]:
    """Yield the database URL of an empty store (a fresh SQLite file or PostgreSQL schema)."""
    if store != "postgresql":
        # The bare crawl keeps no state, but must not write ./newscrawl.db either.
        yield f"sqlite:///{work_dir / f'{store}-{uuid.uuid4().hex[:8]}.db'}"
        return
    from sqlalchemy import create_engine

    schema = f"newscrawl_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_url)
    try:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        separator = "&" if "?" in postgres_url else "?"
        yield f"{postgres_url}{separator}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


def count_stored(database_url: str) -> tuple[int, int, int]:
    """Stored articles, failed pages and pending pages in a store."""
    from sqlalchemy import create_engine, func, select

    from newscrawl.storage.models import Article, Page

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            articles = connection.scalar(select(func.count()).select_from(Article)) or 0
            by_status = dict(
                connection.execute(select(Page.status, func.count()).group_by(Page.status)).all()
            )
    finally:
        engine.dispose()
    return int(articles), int(by_status.get("failed", 0)), int(by_status.get("pending", 0))


def build_crawl_command(
    mode: str,
    store: str,
    network: NetworkProcess,
    database_url: str,
    work_dir: Path,
    stats_file: Path,
    overrides: Sequence[str],
) -> list[str]:
    """The `python -m scrapy crawl` command of one run; --setting overrides come last."""
    if mode == "feeds":
        feeds_file = work_dir / "feeds.txt"
        feeds_file.write_text("\n".join(network.feed_lines) + "\n", encoding="utf-8")
        arguments = ["-a", f"feeds={feeds_file}"]
    else:
        arguments = ["-a", f"site={','.join(network.base_urls)}"]
    settings = {
        "NEWSCRAWL_DATABASE_URL": database_url,
        "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
        "TELNETCONSOLE_ENABLED": "False",
        "LOG_LEVEL": "INFO",
        "STATS_CLASS": "bench.crawl_stats.BenchStatsCollector",
        "NEWSCRAWL_BENCH_STATS_FILE": str(stats_file),
    }
    if store == "bare":
        # Download only: no item pipelines, no newscrawl extensions, no feed state database.
        settings |= {
            "ITEM_PIPELINES": "{}",
            "EXTENSIONS": "{}",
            "NEWSCRAWL_FEED_STATE_ENABLED": "False",
        }
    command = [sys.executable, "-m", "scrapy", "crawl", SPIDERS[mode], *arguments]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    for override in overrides:
        command += ["-s", override]
    return command


def run_crawl(
    mode: str,
    store: str,
    network: NetworkProcess,
    args: argparse.Namespace,
    profile_to: Path | None = None,
) -> CrawlRun:
    """Run one crawl process against a fresh store and collect its figures."""
    out_dir: Path = args.out_dir
    work_dir = Path(tempfile.mkdtemp(prefix="newscrawl-crawl-speed-"))
    label = f"{mode}-{store}-{network.articles}" + ("-profiled" if profile_to else "")
    label += f"-{uuid.uuid4().hex[:6]}"
    stats_file = work_dir / "stats.json"
    log_path = out_dir / f"{label}.log"
    with open_store(store, work_dir, args.postgres_url) as database_url:
        command = build_crawl_command(
            mode, store, network, database_url, work_dir, stats_file, args.setting
        )
        if profile_to is not None:
            command = build_profile_command(profile_to, args.profile_rate, command)
        network.reset()
        started = time.monotonic()
        cpu_before = children_cpu_seconds()
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, cwd=REPO_ROOT, env=build_environment(), stdout=log, stderr=log
            )
            tree_peak = watch_process_tree(process)
        wall = time.monotonic() - started
        cpu = children_cpu_seconds() - cpu_before
        served = network.served()["articles"]
        stats = read_stats(stats_file)
        stored = failed = pending = None
        if store != "bare" and stats:
            stored, failed, pending = count_stored(database_url)
    # A 20,000-page SQLite store takes some 270 MB: keep only the log.
    shutil.rmtree(work_dir, ignore_errors=True)
    spider = SPIDERS[mode]
    fetched = int(stats.get(PAGE_FETCHED_KEYS[spider], 0))
    done = fetched if store == "bare" else (stored or 0)
    elapsed = float(stats.get("elapsed_time_seconds", wall))
    active = float(stats.get("bench/active_seconds", elapsed))
    peak = stats.get(PEAK_MEMORY_RSS_BYTES, stats.get("bench/vmhwm_bytes"))
    return CrawlRun(
        mode=mode,
        store=store,
        network_pages=network.articles,
        served=served,
        fetched=fetched,
        stored=stored,
        failed_pages=failed,
        pending_pages=pending,
        elapsed_seconds=round(elapsed, 2),
        active_seconds=round(active, 2),
        wall_seconds=round(wall, 2),
        pages_per_second=round(done / elapsed, 1) if elapsed > 0 else 0.0,
        active_pages_per_second=round(done / active, 1) if active > 0 else 0.0,
        per_page_ms=round(1000 * elapsed / done, 3) if done else float("nan"),
        peak_rss_mb=round(peak / 1e6, 1) if peak else None,
        peak_tree_rss_mb=round(tree_peak / 1e6, 1) if tree_peak else None,
        cpu_seconds=round(cpu, 2),
        process_cpu_seconds=stats.get("bench/process_cpu_seconds"),
        returncode=process.returncode,
        lost=network.articles - done,
        command=command,
        log=str(log_path),
    )


def children_cpu_seconds() -> float:
    """User and system CPU seconds of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def read_tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants, from /proc (0 once it is gone)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        # The command name (in parentheses) may hold spaces; the parent pid follows it.
        parents[int(stat.parent.name)] = int(text.rpartition(")")[2].split()[1])
    tree = {root}
    grew = True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= children
        grew = bool(children)
    total = 0
    for pid in tree:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_SIZE
        except (OSError, IndexError, ValueError):
            continue
    return total


def watch_process_tree(process: subprocess.Popen[bytes], interval: float = 0.5) -> int:
    """Wait for a process; return the peak resident bytes of it and its descendants."""
    peak = 0
    while process.poll() is None:
        peak = max(peak, read_tree_rss(process.pid))
        try:
            process.wait(timeout=interval)
        except subprocess.TimeoutExpired:
            continue
    return peak


def read_stats(path: Path) -> dict[str, Any]:
    """The stats a crawl wrote, or {} when it wrote none (it crashed: see its log)."""
    try:
        stats: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stats


def find_py_spy() -> Path:
    """The py-spy beside this interpreter (the bench extra installs it there)."""
    return Path(sys.executable).with_name("py-spy")


def build_profile_command(output: Path, rate: int, command: list[str]) -> list[str]:
    """Wrap a crawl command in `py-spy record`, collapsed stacks (raw) to `output`."""
    return [
        str(find_py_spy()),
        "record",
        "--format",
        "raw",
        "-o",
        str(output),
        "-r",
        str(rate),
        "--subprocesses",
        "--",
        *command,
    ]


def read_profile_stacks(path: Path) -> list[tuple[str, int]]:
    """(stack, samples) pairs of py-spy's raw (collapsed) output.

    A process label holds its command line, which may contain newlines (`python -c`), so a
    record ends only at a line ending in its sample count.
    """
    stacks: list[tuple[str, int]] = []
    pending = ""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        pending = f"{pending}\n{line}" if pending else line
        stack, _, count_text = pending.rpartition(" ")
        if stack and count_text.isdigit():
            stacks.append((stack, int(count_text)))
            pending = ""
    return stacks


def find_process(stack: str) -> str:
    """The pid of the innermost process of a stack (py-spy nests children under parents)."""
    pids = PROCESS_FRAME.findall(stack)
    return pids[-1] if pids else ""


def classify_stack(stack: str, main_processes: set[str]) -> str:
    """Which thread a sampled stack ran on: the reactor, a worker thread, or another process."""
    if find_process(stack) not in main_processes:
        # With --subprocesses: an extraction pool's processes, for instance.
        return "child processes"
    if "_bootstrap (threading.py" in stack:
        return "worker threads"
    return "reactor thread"


def summarise_profile(path: Path, top: int = 12) -> dict[str, Any]:
    """Per thread kind: its share of the samples, components (inclusive) and top own frames."""
    lines = read_profile_stacks(path)
    # The crawl process is the one running scrapy's command line.
    main_processes = {find_process(stack) for stack, _ in lines if "scrapy/cmdline.py" in stack}
    own: dict[str, Counter[str]] = {}
    components: dict[str, Counter[str]] = {}
    samples: Counter[str] = Counter()
    for stack, count in lines:
        kind = classify_stack(stack, main_processes)
        samples[kind] += count
        own.setdefault(kind, Counter())[stack.split(";")[-1]] += count
        for name in {name for needle, name in PROFILE_COMPONENTS if needle in stack}:
            components.setdefault(kind, Counter())[name] += count
    total = sum(samples.values())
    by_thread: dict[str, Any] = {}
    for kind, count in samples.most_common():
        share = 100 / count
        by_thread[kind] = {
            "samples": count,
            "percent_of_all": round(100 * count / total, 1),
            "component_percent": [
                (name, round(n * share, 1))
                for name, n in components.get(kind, Counter()).most_common()
            ],
            "own_percent": [(name, round(n * share, 1)) for name, n in own[kind].most_common(top)],
        }
    return {"samples": total, "by_thread": by_thread}


def run_comparison(network: NetworkProcess, args: argparse.Namespace) -> list[CrawlRun]:
    """Every mode through every store, on one network, --repeat times interleaved."""
    runs: list[CrawlRun] = []
    for _ in range(args.repeat):
        for mode in args.modes:
            for store in args.stores:
                run = run_crawl(mode, store, network, args)
                print_run(run)
                runs.append(run)
    return runs


def select_best(runs: Sequence[CrawlRun], mode: str, store: str, pages: int) -> CrawlRun | None:
    """The fastest of the repeats of one configuration: a shared machine only slows runs down."""
    matching = [r for r in runs if (r.mode, r.store, r.network_pages) == (mode, store, pages)]
    return max(matching, key=lambda r: r.pages_per_second, default=None)


def select_bests(runs: Sequence[CrawlRun]) -> list[CrawlRun]:
    """One run per (mode, store, network size): the fastest of its repeats."""
    keys = dict.fromkeys((r.mode, r.store, r.network_pages) for r in runs)
    return [run for key in keys if (run := select_best(runs, *key)) is not None]


def compute_ratios(runs: Sequence[CrawlRun]) -> dict[str, dict[str, float]]:
    """Best newscrawl pages/s over best bare pages/s, per mode and store, same network."""
    ratios: dict[str, dict[str, float]] = {}
    for run in select_bests(runs):
        bare = select_best(runs, run.mode, "bare", run.network_pages)
        if run.store != "bare" and bare is not None and bare.pages_per_second > 0:
            ratios.setdefault(run.mode, {})[run.store] = round(
                run.pages_per_second / bare.pages_per_second, 3
            )
    return ratios


def compute_scaling(runs: Sequence[CrawlRun]) -> dict[str, Any]:
    """Per-page time at each size, and the largest size's over the smallest's."""
    points = sorted(runs, key=lambda r: r.network_pages)
    summary: dict[str, Any] = {
        "points": [
            {
                "pages": r.network_pages,
                "per_page_ms": r.per_page_ms,
                "active_per_page_ms": round(1000 / r.active_pages_per_second, 3)
                if r.active_pages_per_second
                else None,
                "pages_per_second": r.pages_per_second,
                "peak_rss_mb": r.peak_rss_mb,
                "peak_tree_rss_mb": r.peak_tree_rss_mb,
            }
            for r in points
        ]
    }
    if len(points) >= 2 and points[0].per_page_ms > 0:
        summary["ratio_largest_to_smallest"] = round(
            points[-1].per_page_ms / points[0].per_page_ms, 3
        )
        first, last = summary["points"][0], summary["points"][-1]
        if first["active_per_page_ms"] and last["active_per_page_ms"]:
            summary["active_ratio_largest_to_smallest"] = round(
                last["active_per_page_ms"] / first["active_per_page_ms"], 3
            )
    return summary


def print_run(run: CrawlRun) -> None:
    """One line per crawl, as it finishes."""
    stored = "-" if run.stored is None else str(run.stored)
    rss = "?" if run.peak_rss_mb is None else f"{run.peak_rss_mb:.0f}"
    if run.peak_tree_rss_mb is not None:
        rss += f" ({run.peak_tree_rss_mb:.0f} with children)"
    flag = "" if run.lost == 0 and run.returncode == 0 else f"  LOST {run.lost} rc={run.returncode}"
    print(
        f"{run.mode:8} {run.store:10} pages {run.network_pages:6}  served {run.served:6}  "
        f"stored {stored:>6}  {run.pages_per_second:7.1f} pages/s  "
        f"({run.active_pages_per_second:7.1f} active)  {run.per_page_ms:6.2f} ms/page  "
        f"elapsed {run.elapsed_seconds:6.1f} s  CPU {run.cpu_seconds or 0:5.1f} s "
        f"(crawl process {run.process_cpu_seconds or 0:5.1f} s)  "
        f"RSS {rss} MB{flag}",
        flush=True,
    )


def write_plot(report: dict[str, Any], path: Path) -> None:
    """Bars of pages/s per store and mode, and the per-page time against the network size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [r for r in report["best_runs"] if r["network_pages"] == report["pages"]]
    scaling = report.get("scaling", {}).get("points", [])
    figure, (bars_axis, line_axis) = plt.subplots(1, 2, figsize=(12, 4.5))
    modes = [m for m in MODES if any(r["mode"] == m for r in runs)]
    stores = [s for s in STORES if any(r["store"] == s for r in runs)]
    width = 0.8 / max(1, len(stores))
    for offset, store in enumerate(stores):
        values = [
            next((r["pages_per_second"] for r in runs if r["mode"] == m and r["store"] == store), 0)
            for m in modes
        ]
        positions = [i + offset * width for i in range(len(modes))]
        bars = bars_axis.bar(positions, values, width, label=store)
        ratios = [report["ratios"].get(m, {}).get(store) for m in modes]
        labels = [
            f"{v:.0f}" if r is None else f"{v:.0f}\n{r:.2f}x bare"
            for v, r in zip(values, ratios, strict=True)
        ]
        bars_axis.bar_label(bars, labels=labels, fontsize=8)
    bars_axis.set_xticks([i + width * (len(stores) - 1) / 2 for i in range(len(modes))], modes)
    bars_axis.set_ylabel("pages per second")
    bars_axis.set_title(f"{report['pages']} pages: newscrawl against bare Scrapy")
    bars_axis.legend()
    if scaling:
        sizes = [p["pages"] for p in scaling]
        line_axis.plot(sizes, [p["per_page_ms"] for p in scaling], marker="o", label="elapsed")
        active = [p["active_per_page_ms"] for p in scaling]
        if all(active):
            line_axis.plot(sizes, active, marker="s", label="first response to last item")
        line_axis.set_xscale("log")
        line_axis.set_ylim(bottom=0)
        line_axis.set_xlabel("article pages in the network")
        line_axis.set_ylabel("ms per page (SQLite, feeds)")
        line_axis.set_title("per-page cost against crawl size")
        line_axis.legend()
    else:
        line_axis.set_axis_off()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    """Every run the arguments ask for; returns the report."""
    args.out_dir.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "command": [sys.executable, "-m", "bench.crawl_speed", *args.argv],
        "pages": args.pages,
        "settings": list(args.setting),
        "cpu_count": os.cpu_count(),
        "runs": [],
    }
    runs: list[CrawlRun] = []
    scaling_runs: list[CrawlRun] = []
    sizes = sorted({args.pages, *args.scales}) if args.pages else sorted(set(args.scales))
    for size in sizes:
        with serve_network(size, args.seed) as network:
            print(
                f"network: {network.articles} article pages, {len(network.base_urls)} sites, "
                f"{network.bytes_per_page} bytes per page",
                flush=True,
            )
            if size == args.pages:
                report["bytes_per_page"] = network.bytes_per_page
                runs += run_comparison(network, args)
                if args.profile is not None:
                    report["profile"] = profile_crawl(network, args)
                if args.workers:
                    from bench.crawl_workers import run_worker_comparison

                    report["workers"] = [
                        asdict(r) | {"failed": r.failed}
                        for r in run_worker_comparison(network, args)
                    ]
            if size in args.scales:
                done = sum(
                    1
                    for r in runs
                    if (r.mode, r.store, r.network_pages) == (args.scaling_mode, "sqlite", size)
                )
                for _ in range(args.repeat - done):
                    run = run_crawl(args.scaling_mode, "sqlite", network, args)
                    print_run(run)
                    runs.append(run)
                best = select_best(runs, args.scaling_mode, "sqlite", size)
                if best is not None:
                    scaling_runs.append(best)
    report["runs"] = [asdict(run) for run in runs]
    # The figures: one run per configuration, the fastest of its --repeat runs.
    report["best_runs"] = [asdict(run) for run in select_bests(runs)]
    report["ratios"] = compute_ratios(runs)
    report["scaling"] = compute_scaling(scaling_runs) if scaling_runs else {}
    report["losses"] = [
        {
            "mode": r.mode,
            "store": r.store,
            "pages": r.network_pages,
            "lost": r.lost,
            "served": r.served,
            "failed": r.failed_pages,
            "pending": r.pending_pages,
            "returncode": r.returncode,
            "log": r.log,
        }
        for r in runs
        if r.lost or r.returncode or r.served != r.network_pages
    ]
    report["losses"] += [w for w in report.get("workers", []) if w["failed"]]
    report["targets"] = {
        "sqlite_ratio_at_least": RATIO_TARGET,
        "sqlite_ratio_met": all(
            modes.get("sqlite", RATIO_TARGET) >= RATIO_TARGET for modes in report["ratios"].values()
        ),
        "scaling_ratio_at_most": SCALING_TARGET,
        "scaling_ratio_met": report["scaling"].get("ratio_largest_to_smallest", 0.0)
        <= SCALING_TARGET,
    }
    return report


def profile_crawl(network: NetworkProcess, args: argparse.Namespace) -> dict[str, Any]:
    """Run the feeds crawl (--profile-store) under py-spy and summarise where its time goes."""
    output: Path = args.profile
    run = run_crawl("feeds", args.profile_store, network, args, profile_to=output)
    print_run(run)
    summary = summarise_profile(output)
    summary["run"] = asdict(run)
    summary["raw"] = str(output)
    print(f"profile: {summary['samples']} samples in {output} (py-spy, busy samples only)")
    for kind, part in summary["by_thread"].items():
        busy = part["samples"] / (args.profile_rate * run.wall_seconds)
        summary["by_thread"][kind]["busy_fraction_of_wall"] = round(busy, 2)
        print(f"{kind}: {part['percent_of_all']}% of samples, {busy:.0%} of the wall time busy")
        for name, percent in part["component_percent"]:
            print(f"  {percent:5.1f}%  {name} (inclusive)")
        for name, percent in part["own_percent"]:
            print(f"  {percent:5.1f}%  {name} (own)")
    return summary


def print_summary(report: dict[str, Any]) -> None:
    """The fastest repeats (with --repeat), ratios, scaling and losses after every run."""
    if len(report["best_runs"]) < len(report["runs"]):
        print("fastest of the repeats:")
        for data in report["best_runs"]:
            print_run(CrawlRun(**data))
    for mode, stores in report["ratios"].items():
        for store, ratio in stores.items():
            print(f"ratio {store}/bare ({mode}): {ratio:.3f}")
    scaling = report.get("scaling") or {}
    if "ratio_largest_to_smallest" in scaling:
        sizes = [p["pages"] for p in scaling["points"]]
        print(
            f"per-page time {sizes[-1]} / {sizes[0]} pages: "
            f"{scaling['ratio_largest_to_smallest']:.3f} elapsed, "
            f"{scaling.get('active_ratio_largest_to_smallest', float('nan')):.3f} active"
        )
    for loss in report["losses"]:
        print(f"LOSS: {loss}")
    if not report["losses"]:
        print("every page served was stored (or fetched, for bare runs)")


def parse_list(text: str) -> list[str]:
    """A comma-separated list."""
    return [part.strip() for part in text.split(",") if part.strip()]


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join((__doc__ or "").splitlines()[1:]),
    )
    parser.add_argument(
        "--pages",
        type=int,
        default=5000,
        help="article pages of the comparison runs (5000; 0 = none)",
    )
    parser.add_argument(
        "--scales",
        type=lambda t: [int(p) for p in parse_list(t)],
        default=[1000, 2000],
        help="network sizes of the scaling runs (1000,2000; the issue: "
        "1000,5000,20000; empty = none)",
    )
    parser.add_argument("--scaling-mode", choices=MODES, default="feeds")
    parser.add_argument("--modes", type=parse_list, default=list(MODES), help="feeds,sitemaps")
    parser.add_argument(
        "--stores", type=parse_list, default=list(STORES), help="bare,sqlite,postgresql"
    )
    parser.add_argument("--postgres-url", default=POSTGRES_URL)
    parser.add_argument(
        "-s",
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Scrapy setting for every crawl, e.g. -s CONCURRENT_REQUESTS=32",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="FILE.txt",
        help="also run the SQLite feeds crawl under py-spy, stacks to FILE",
    )
    parser.add_argument("--profile-rate", type=int, default=100, help="py-spy samples per second")
    parser.add_argument(
        "--profile-store", choices=("sqlite", "postgresql"), default="sqlite",
        help="the store of the profiled feeds crawl (sqlite)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per configuration; figures use the fastest"
    )
    parser.add_argument(
        "--workers",
        type=lambda t: [int(p) for p in parse_list(t)],
        default=[],
        help="also run N workers sharing Redis and PostgreSQL, for each N (e.g. 1,2,4)",
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=Path("out/crawl-speed"),
        help="crawl logs (out/crawl-speed)",
    )
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--plot", type=Path, help="write a PNG here (needs matplotlib)")
    args = parser.parse_args(argv)
    for mode in args.modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    for store in args.stores:
        if store not in STORES:
            parser.error(f"unknown store {store!r}; choose from {', '.join(STORES)}")
    for setting in args.setting:
        if "=" not in setting:
            parser.error(f"--setting {setting!r} is not KEY=VALUE")
    if args.profile is not None and not find_py_spy().exists():
        # Found before the comparison runs, not after them.
        parser.error(f"--profile needs py-spy at {find_py_spy()}: pip install 'newscrawl[bench]'")
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print it, and write the JSON and PNG asked for."""
    args = parse_arguments(argv)
    report = run_bench(args)
    print_summary(report)
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    if args.plot is not None:
        write_plot(report, args.plot)
    return 1 if report["losses"] else 0


if __name__ == "__main__":
    sys.exit(main())
