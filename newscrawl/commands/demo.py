"""`newscrawl demo`: serve the local demo news network, crawl it into SQLite, print a summary."""

from __future__ import annotations

import argparse
import shlex
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from newscrawl.demo import DemoNetworkServer, build_network
from newscrawl.demo.crawl import build_demo_settings, run_demo_crawls
from newscrawl.demo.summary import build_summary

NAME = "demo"
HELP = "Serve the local demo news network on 127.0.0.1, crawl it into SQLite, print a summary."
# Fixed by default so that re-running the demo keeps the same sites (site = host:port).
DEFAULT_BASE_PORT = 8701


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument(
        "--database", type=Path, default=Path("newscrawl.db"), metavar="PATH",
        help="SQLite file to crawl into (default: ./newscrawl.db)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_BASE_PORT,
        help="first port of the demo sites, one per site; 0 picks free ports",
    )
    parser.add_argument(
        "--keep-serving", action="store_true",
        help="keep serving the demo network after the crawl, until Ctrl-C",
    )
    parser.add_argument("--verbose", action="store_true", help="log the crawl at INFO level")


def assign_ports(base_port: int, keys: list[str]) -> dict[str, int]:
    """A port per site from `base_port` on; none (free ports) for `--port 0`."""
    if base_port == 0:
        return {}
    return {key: base_port + offset for offset, key in enumerate(keys)}


def find_busy_port(ports: dict[str, int]) -> int | None:
    """The first of the ports that another process holds, if any."""
    for port in ports.values():
        with socket.socket() as probe:
            # As the HTTP server will: a port in TIME_WAIT from the last run is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                return port
    return None


def format_next_steps(
    database: Path, base_urls: dict[str, str], article_url: str, *, serving: bool
) -> str:
    """The commands to try next against the demo's database and sites."""
    url = shlex.quote(f"sqlite:///{database}")
    first, *others = base_urls.values()
    second = others[0] if others else first
    loopback = "-s NEWSCRAWL_SSRF_ALLOWLIST=127.0.0.1"
    commands = [
        f"newscrawl status --database-url {url}",
        f"newscrawl crawl rss -a feed={first}/rss.xml {loopback} -s NEWSCRAWL_DATABASE_URL={url}",
        f"newscrawl crawl sitemap -a site={second} {loopback} -s NEWSCRAWL_DATABASE_URL={url}",
        f"newscrawl extract {article_url} --allow-host 127.0.0.1 --format markdown",
        f"newscrawl export --format markdown --database-url {url} --output articles.md",
    ]
    intro = (
        "Try next, while the demo network keeps serving (Ctrl-C stops it):"
        if serving
        else "The demo network has stopped; with `newscrawl demo --keep-serving` try next:"
    )
    return "\n".join([intro, *(f"  {command}" for command in commands)])


def wait_for_stop_signal() -> None:
    """Block until Ctrl-C (SIGINT) or SIGTERM.

    The crawl's reactor installed its own SIGINT handler, which outlives it and would swallow
    Ctrl-C, so both signals get ours for the wait.
    """
    stop = threading.Event()

    def request_stop(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(args: argparse.Namespace) -> int:
    """Serve, crawl with both spiders, summarise; return the exit status."""
    sites = build_network()
    database = args.database.resolve()
    ports = assign_ports(args.port, [s.key for s in sites])
    busy = find_busy_port(ports)
    if busy is not None:
        print(
            f"newscrawl demo: port {busy} is in use; the demo needs ports {args.port}"
            f"-{args.port + len(sites) - 1}: pick another --port, e.g. --port 9701,"
            " or --port 0 for free ones",
            file=sys.stderr,
        )
        return 2
    server = DemoNetworkServer(sites, ports=ports)
    try:
        server.start()
        print("Demo news network:")
        for key, url in server.base_urls.items():
            print(f"  {key:8} {url}/  (robots.txt, rss.xml, atom.xml, sitemap_index.xml)")
        overrides = {} if not args.verbose else {"LOG_LEVEL": "INFO"}
        settings = build_demo_settings(f"sqlite:///{database}", overrides)
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="newscrawl-demo-") as workdir:
            feeds_file = Path(workdir) / "feeds.txt"
            feeds_file.write_text("\n".join(server.feed_lines()) + "\n", encoding="utf-8")
            run_demo_crawls(settings, feeds_file, list(server.base_urls.values()))
        print(f"Crawled with the rss then the sitemap spider in {time.monotonic() - started:.1f}s"
              f" into {database}\n")
        print(build_summary(database, server.gold_text))
        first_site = sites[0]
        article_url = server.base_urls[first_site.key] + first_site.articles[0].path
        print(format_next_steps(
            database, server.base_urls, article_url, serving=args.keep_serving
        ))
        sys.stdout.flush()
        if args.keep_serving:
            wait_for_stop_signal()
            print("Stopped serving the demo network.")
    except Exception as exc:  # a CLI reports, it does not dump a traceback on the user
        print(f"newscrawl demo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    return 0
