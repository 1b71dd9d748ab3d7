"""`newscrawl demo`: serve the local demo news network, crawl it into SQLite, print a summary."""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
import tempfile
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


def choose_ports(base_port: int, keys: list[str]) -> dict[str, int]:
    """Return a port per site from `base_port` on, or free ports if any of them is taken."""
    if base_port == 0:
        return {}
    ports = {key: base_port + offset for offset, key in enumerate(keys)}
    for port in ports.values():
        with socket.socket() as probe, contextlib.suppress(OSError):
            # As the HTTP server will: a port in TIME_WAIT from the last run is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", port))
            continue
        return {}
    return ports


def run(args: argparse.Namespace) -> int:
    """Serve, crawl with both spiders, summarise; return the exit status."""
    sites = build_network()
    database = args.database.resolve()
    server = DemoNetworkServer(sites, ports=choose_ports(args.port, [s.key for s in sites]))
    server.start()
    try:
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
        if args.keep_serving:
            print("Serving the demo network; press Ctrl-C to stop.")
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    except Exception as exc:  # a CLI reports, it does not dump a traceback on the user
        print(f"newscrawl demo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    return 0
