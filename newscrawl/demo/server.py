"""Serve the demo news network on 127.0.0.1: one threaded HTTP server, and so one site, per port."""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Mapping, Sequence
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from newscrawl.demo.content import DemoArticle, DemoSite, build_network
from newscrawl.demo.routes import render_path
from newscrawl.demo.serving import ServerGroup


class DemoSiteServer(ThreadingHTTPServer):
    """An HTTP server for one demo site."""

    daemon_threads = True

    def __init__(self, site: DemoSite, host: str, port: int) -> None:
        super().__init__((host, port), DemoRequestHandler)
        self.site = site
        self.base_url = f"http://{host}:{self.server_address[1]}"


class DemoRequestHandler(BaseHTTPRequestHandler):
    """Serve GET with ETag/Last-Modified conditional requests and optional gzip encoding."""

    server: DemoSiteServer

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        response = render_path(self.server.site, self.server.base_url, self.path)
        etag = '"' + hashlib.sha1(response.body).hexdigest()[:20] + '"'
        if response.status == 200 and self._is_unchanged(etag, response.last_modified):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        body = response.body
        encoding = None
        if response.compressible and "gzip" in self.headers.get("Accept-Encoding", ""):
            body, encoding = gzip.compress(body, mtime=0), "gzip"
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        if response.last_modified is not None:
            self.send_header("Last-Modified", format_datetime(response.last_modified, usegmt=True))
        self.end_headers()
        self.wfile.write(body)

    def _is_unchanged(self, etag: str, last_modified: object) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            return etag in [tag.strip() for tag in if_none_match.split(",")]
        since = self.headers.get("If-Modified-Since")
        if since and last_modified is not None:
            try:
                return bool(last_modified <= parsedate_to_datetime(since))  # type: ignore[operator]
            except (TypeError, ValueError):
                return False
        return False

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: the crawler logs what matters."""


class DemoNetworkServer(ServerGroup[DemoSiteServer]):
    """Start and stop the demo sites; map URLs back to their generated articles (the gold)."""

    def __init__(
        self,
        sites: Sequence[DemoSite] | None = None,
        host: str = "127.0.0.1",
        ports: Mapping[str, int] | None = None,
    ) -> None:
        self.sites = tuple(sites) if sites is not None else build_network()
        self.host = host
        self.ports = dict(ports or {})
        super().__init__()

    @property
    def base_urls(self) -> dict[str, str]:
        """The base URL ("http://127.0.0.1:PORT") of each running site, by site key."""
        return {server.site.key: server.base_url for server in self._servers}

    def start(self) -> None:
        """Bind every site to its port (a free one unless given) and serve in daemon threads."""
        for site in self.sites:
            server = DemoSiteServer(site, self.host, self.ports.get(site.key, 0))
            self.serve(server, f"demo-{site.key}")

    def site_for_url(self, url: str) -> DemoSite | None:
        """Return the running site that serves `url`."""
        netloc = urlsplit(url).netloc
        for server in self._servers:
            if urlsplit(server.base_url).netloc == netloc:
                return server.site
        return None

    def article_for_url(self, url: str) -> DemoArticle | None:
        """Return the generated article behind a URL of the running network, if any."""
        site = self.site_for_url(url)
        return site.find_article(urlsplit(url).path) if site is not None else None

    def gold_text(self, url: str) -> str | None:
        """Return the gold text of the article at `url`."""
        article = self.article_for_url(url)
        return article.gold_text if article is not None else None

    def feed_lines(self) -> list[str]:
        """Lines of a feeds file for the rss spider covering the network in every way it offers.

        The first site by its per-category RSS 2.0 feeds (category after a tab), the second
        by its Atom feed, the rest by their home pages, where the spider discovers the feeds.
        """
        lines: list[str] = []
        for index, server in enumerate(self._servers):
            site, base = server.site, server.base_url
            if index == 0:
                lines.extend(f"{base}/{c}/rss.xml\t{c}" for c in site.categories)
            elif index == 1:
                lines.append(f"{base}/atom.xml")
            else:
                lines.append(f"{base}/")
        return lines
