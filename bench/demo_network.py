"""A demo news network of any size, served on loopback from its own process for crawl benchmarks.

    python -m bench.demo_network --pages 5000

prints one JSON line with the sites' base URLs once every site is bound (127.0.0.1, free
ports), then answers commands read from stdin, one JSON line each: `stats` (article pages
served since the last reset, and how many of those were a page served again), `reset`, and
end of input to stop. Every category feed lists
all of its articles and the sitemaps list every article, so both spiders reach every page.
Article pages are rendered once at start-up, so serving a page costs a dictionary look-up
and the server process stays out of the crawler's way.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from newscrawl.demo.content import SITE_SPECS, DemoArticle, DemoSite, build_article
from newscrawl.demo.layouts import render_article_page
from newscrawl.demo.routes import render_path
from newscrawl.demo.serving import ServerGroup
from newscrawl.demo.syndication import render_rss

RSS = "application/rss+xml; charset=utf-8"
HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class RenderedPage:
    """An article page ready for the wire."""

    body: bytes
    etag: str


def split_pages(pages: int, weights: Sequence[int]) -> list[int]:
    """Split `pages` over groups in proportion to `weights` (largest remainder), summing exactly."""
    total = sum(weights)
    shares = [pages * weight / total for weight in weights]
    counts = [int(share) for share in shares]
    by_remainder = sorted(range(len(weights)), key=lambda i: shares[i] - counts[i], reverse=True)
    for index in by_remainder[: pages - sum(counts)]:
        counts[index] += 1
    return counts


def build_sized_network(pages: int, seed: int = 2026) -> tuple[DemoSite, ...]:
    """The demo sites with `pages` articles in all, spread as the demo spreads its groups."""
    weights = [count for _, _, _, counts in SITE_SPECS for count in counts.values()]
    counts = iter(split_pages(pages, weights))
    sites: list[DemoSite] = []
    for key, name, layout, categories in SITE_SPECS:
        articles: list[DemoArticle] = []
        for category in categories:
            for index in range(next(counts)):
                # The same generator as build_network, so a page is the same at every size.
                rng = random.Random(f"{seed}/{key}/{category}/{index}")
                articles.append(build_article(rng, key, category, index))
        articles.sort(key=lambda a: (a.published, a.slug), reverse=True)
        sites.append(DemoSite(key, name, layout, tuple(categories), tuple(articles)))
    return tuple(sites)


class ServedCounter:
    """Article pages served, shared by every site's threads, with a log of which ones."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.articles = 0
        self.other = 0
        # Times each article URL was served: the duplicate fetches of several crawl workers.
        self.served_urls: Counter[str] = Counter()

    def count(self, *, article: bool, url: str = "") -> None:
        """Count one answered request (`url` names an article page)."""
        with self.lock:
            if article:
                self.articles += 1
                self.served_urls[url] += 1
            else:
                self.other += 1

    def snapshot(self, *, reset: bool = False) -> dict[str, int]:
        """The counts so far (`repeated`: article fetches after a URL's first); zeroed when
        `reset`."""
        with self.lock:
            counts = {
                "articles": self.articles,
                "other": self.other,
                "repeated": self.articles - len(self.served_urls),
                "repeated_urls": sum(1 for n in self.served_urls.values() if n > 1),
            }
            if reset:
                self.articles = self.other = 0
                self.served_urls.clear()
        return counts


class BenchSiteServer(ThreadingHTTPServer):
    """One site of the benchmark network, its article pages rendered in advance."""

    daemon_threads = True

    def __init__(self, site: DemoSite, counter: ServedCounter, host: str) -> None:
        super().__init__((host, 0), BenchRequestHandler)
        self.site = site
        self.counter = counter
        self.base_url = f"http://{host}:{self.server_address[1]}"
        self.pages = {
            article.path: render_page(site, article, self.base_url) for article in site.articles
        }
        self.feeds = {
            f"/{category}/rss.xml": render_rss(site, self.base_url, category, limit=None).encode()
            for category in site.categories
        }


def render_page(site: DemoSite, article: DemoArticle, base_url: str) -> RenderedPage:
    """Render an article page and its ETag."""
    body = render_article_page(site, article, base_url).encode("utf-8")
    return RenderedPage(body, '"' + hashlib.sha1(body).hexdigest()[:20] + '"')


class BenchRequestHandler(BaseHTTPRequestHandler):
    """Serve pre-rendered article pages and full feeds over keep-alive connections."""

    server: BenchSiteServer
    # Keep-alive, as real sites and Scrapy's HTTP/1.1 connection pool do.
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        path = self.path.split("?", 1)[0]
        page = self.server.pages.get(path)
        if page is not None:
            self.server.counter.count(article=True, url=self.server.base_url + path)
            self._send(200, HTML, page.body, page.etag)
            return
        self.server.counter.count(article=False)
        feed = self.server.feeds.get(path)
        if feed is not None:
            self._send(200, RSS, feed)
            return
        response = render_path(self.server.site, self.server.base_url, path)
        self._send(response.status, response.content_type, response.body)

    def _send(self, status: int, content_type: str, body: bytes, etag: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if etag is not None:
            self.send_header("ETag", etag)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: the crawler logs what matters."""


class BenchNetworkServer(ServerGroup[BenchSiteServer]):
    """The sized demo network on loopback, one port per site."""

    def __init__(self, pages: int, seed: int = 2026, host: str = "127.0.0.1") -> None:
        super().__init__()
        self.sites = build_sized_network(pages, seed)
        self.host = host
        self.counter = ServedCounter()

    def start(self) -> None:
        """Render and bind every site, then serve in daemon threads."""
        for site in self.sites:
            self.serve(BenchSiteServer(site, self.counter, self.host), f"bench-{site.key}")

    def describe(self) -> dict[str, object]:
        """What a crawler needs: base URLs, feed lines (category after a tab), page count."""
        return {
            "base_urls": [server.base_url for server in self._servers],
            "feed_lines": [
                f"{server.base_url}{path}\t{path.split('/')[1]}"
                for server in self._servers
                for path in server.feeds
            ],
            "articles": sum(len(server.site.articles) for server in self._servers),
            "bytes_per_page": round(
                sum(len(p.body) for s in self._servers for p in s.pages.values())
                / max(1, sum(len(s.pages) for s in self._servers))
            ),
        }


def serve_commands(network: BenchNetworkServer) -> None:
    """Answer `stats` and `reset` lines on stdin until it closes."""
    print(json.dumps(network.describe()), flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command in ("stats", "reset"):
            print(json.dumps(network.counter.snapshot(reset=command == "reset")), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Serve a network of --pages article pages until stdin closes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5000, help="article pages in all (5000)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    with BenchNetworkServer(args.pages, args.seed) as network:
        serve_commands(network)
    return 0


if __name__ == "__main__":
    sys.exit(main())
