"""Soak benchmark: a long re-polling crawl of a demo network whose feeds keep publishing.

Runs `scrapy crawl rss -a every=...` in a subprocess against newscrawl.demo.publishing on
loopback, samples the crawl process's resident memory (/proc/<pid>/statm) and the stored
article count, stops the crawl gracefully once --pages articles are stored, and writes the
figures (JSON) and a plot of memory and throughput over time (PNG).

    .venv/bin/python bench/soak.py --pages 50000 --out-dir soak-results

Target: memory flat after warm-up, under +50 MB from the first to the last tenth of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from sqlalchemy import Engine, create_engine, func, select
from sqlalchemy.exc import OperationalError

from newscrawl.demo.publishing import PublishingNetworkServer, PublishingPlan
from newscrawl.storage.models import Article

REPO_ROOT = Path(__file__).resolve().parents[1]
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
MEMORY_TARGET_MB = 50.0
# Seconds per point of the throughput curve.
THROUGHPUT_WINDOW = 10.0
STOP_TIMEOUT_SECONDS = 180.0


@dataclass(frozen=True)
class Sample:
    """One measurement of the crawl process."""

    seconds: float
    rss_mb: float
    articles: int


@dataclass(frozen=True)
class SoakSummary:
    """The figures of a soak run."""

    pages_target: int
    articles_stored: int
    published: int
    duration_seconds: float
    pages_per_second: float
    rss_first_tenth_mb: float
    rss_last_tenth_mb: float
    rss_growth_mb: float
    rss_peak_mb: float
    memory_target_met: bool
    crawl_returncode: int | None
    command: str


def read_rss_mb(pid: int) -> float | None:
    """Resident memory of a process in MB, None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_text().split()
    except OSError:
        return None
    return int(fields[1]) * PAGE_SIZE / 1e6


def count_articles(engine: Engine) -> int | None:
    """Stored articles, None while the database is not there yet."""
    try:
        with engine.connect() as connection:
            return int(connection.scalar(select(func.count()).select_from(Article)) or 0)
    except OperationalError:
        return None


def build_crawl_command(args: argparse.Namespace, feeds_file: Path, database_url: str) -> list[str]:
    """The crawl a user would run: the rss spider re-polling every feed."""
    settings = {
        "NEWSCRAWL_DATABASE_URL": database_url,
        "NEWSCRAWL_POLL_MIN_INTERVAL": args.every,
        "NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1",
        "NEWSCRAWL_PROGRESS_INTERVAL": "60",
        "TELNETCONSOLE_ENABLED": "False",
        "LOG_LEVEL": "INFO",
    }
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "rss",
        "-a",
        f"feeds={feeds_file}",
        "-a",
        f"every={args.every}",
    ]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    return command


def mean_of_tenth(samples: list[Sample], *, last: bool) -> float:
    """Mean RSS over the first (or last) tenth of the run's duration."""
    end = samples[-1].seconds
    tenth = end / 10
    chosen = [s for s in samples if (s.seconds >= end - tenth if last else s.seconds <= tenth)] or [
        samples[-1] if last else samples[0]
    ]
    return sum(s.rss_mb for s in chosen) / len(chosen)


def compute_throughput(samples: list[Sample]) -> list[tuple[float, float]]:
    """(time, articles per second) over consecutive windows of THROUGHPUT_WINDOW seconds."""
    points: list[tuple[float, float]] = []
    start = samples[0]
    for sample in samples[1:]:
        if sample.seconds - start.seconds >= THROUGHPUT_WINDOW:
            rate = (sample.articles - start.articles) / (sample.seconds - start.seconds)
            points.append((sample.seconds, rate))
            start = sample
    return points


def write_plot(samples: list[Sample], summary: SoakSummary, path: Path) -> None:
    """Memory and throughput over time, one above the other."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (memory_axis, rate_axis) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    memory_axis.plot([s.seconds for s in samples], [s.rss_mb for s in samples], lw=1)
    memory_axis.set_ylabel("crawl RSS (MB)")
    memory_axis.set_title(
        f"soak: {summary.articles_stored} articles in {summary.duration_seconds:.0f} s,"
        f" RSS {summary.rss_growth_mb:+.1f} MB first to last tenth"
    )
    memory_axis.grid(alpha=0.3)
    throughput = compute_throughput(samples)
    rate_axis.plot([t for t, _ in throughput], [r for _, r in throughput], lw=1, color="tab:green")
    rate_axis.set_ylabel(f"articles/s ({THROUGHPUT_WINDOW:.0f} s windows)")
    rate_axis.set_xlabel("seconds since start")
    rate_axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def stop_crawl(process: subprocess.Popen[bytes]) -> None:
    """Ask the crawl to finish (SIGINT, as Ctrl-C), and kill it if it does not."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_soak(args: argparse.Namespace) -> SoakSummary:
    """Run the crawl, sample it until it stored --pages articles, and write the figures."""
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    work_dir = Path(tempfile.mkdtemp(prefix="newscrawl-soak-"))
    database_url = args.database_url or f"sqlite:///{work_dir / 'soak.db'}"
    plan = PublishingPlan(batch=args.batch, window=args.window)
    samples: list[Sample] = []
    with PublishingNetworkServer(plan) as network:
        feeds_file = work_dir / "feeds.txt"
        feeds_file.write_text("\n".join(network.feed_lines()) + "\n", encoding="utf-8")
        command = build_crawl_command(args, feeds_file, database_url)
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        log_path = out_dir / "soak-crawl.log"
        engine = create_engine(database_url)
        with log_path.open("wb") as log:
            process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
            started = time.monotonic()
            try:
                while process.poll() is None:
                    time.sleep(args.sample_interval)
                    rss = read_rss_mb(process.pid)
                    articles = count_articles(engine)
                    if rss is None:
                        break
                    samples.append(Sample(time.monotonic() - started, rss, articles or 0))
                    if len(samples) % 30 == 0:
                        print(
                            f"{samples[-1].seconds:7.0f} s  RSS {rss:7.1f} MB  articles {articles}",
                            flush=True,
                        )
                    if articles is not None and articles >= args.pages:
                        break
                    if time.monotonic() - started > args.max_seconds:
                        print("Stopping: --max-seconds reached", flush=True)
                        break
            finally:
                stop_crawl(process)
        final_articles = count_articles(engine) or 0
        engine.dispose()
        published = network.published_total()
    if len(samples) < 2:
        raise SystemExit(f"the crawl ended before it could be measured; see {log_path}")
    first = next((s for s in samples if s.articles > 0), samples[0])
    duration = samples[-1].seconds
    active = samples[-1].seconds - first.seconds
    first_tenth = mean_of_tenth(samples, last=False)
    last_tenth = mean_of_tenth(samples, last=True)
    summary = SoakSummary(
        pages_target=args.pages,
        articles_stored=final_articles,
        published=published,
        duration_seconds=round(duration, 1),
        pages_per_second=round((samples[-1].articles - first.articles) / active, 2)
        if active > 0
        else 0.0,
        rss_first_tenth_mb=round(first_tenth, 1),
        rss_last_tenth_mb=round(last_tenth, 1),
        rss_growth_mb=round(last_tenth - first_tenth, 1),
        rss_peak_mb=round(max(s.rss_mb for s in samples), 1),
        memory_target_met=last_tenth - first_tenth < MEMORY_TARGET_MB,
        crawl_returncode=process.returncode,
        command=" ".join(command),
    )
    (out_dir / "soak.json").write_text(
        json.dumps({"summary": asdict(summary), "samples": [asdict(s) for s in samples]}, indent=1),
        encoding="utf-8",
    )
    write_plot(samples, summary, out_dir / "soak.png")
    return summary


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=50_000, help="articles to store (50000)")
    parser.add_argument("--every", default="2s", help="feed poll interval (2s)")
    parser.add_argument("--batch", type=int, default=20, help="articles published per feed fetch")
    parser.add_argument("--window", type=int, default=40, help="entries listed per feed")
    parser.add_argument("--database-url", help="store (default: SQLite in a temporary dir)")
    parser.add_argument("--out-dir", default="soak-results", help="where JSON, PNG, log go")
    parser.add_argument("--sample-interval", type=float, default=1.0, help="seconds")
    parser.add_argument("--max-seconds", type=float, default=4 * 3600, help="stop anyway")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    summary = run_soak(parse_arguments(argv))
    print(json.dumps(asdict(summary), indent=1))
    return 0 if summary.memory_target_met else 1


if __name__ == "__main__":
    raise SystemExit(main())
