"""The demo network with a request log: which paths were fetched, and which answered 304."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from newscrawl.demo.content import build_network
from newscrawl.demo.server import DemoRequestHandler, DemoSiteServer


@dataclass
class RequestLog:
    """Requests per path and (path, status) pairs, shared by every site's handler threads."""

    requests: Counter[str] = field(default_factory=Counter)
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, path: str, status: int) -> None:
        """Log one answered request."""
        with self.lock:
            self.requests[path] += 1
            self.statuses[(path, status)] += 1

    def article_requests(self) -> dict[str, int]:
        """How often each article page ("PORT/category/slug.html") was fetched."""
        with self.lock:
            return {
                path: count for path, count in self.requests.items()
                if path.endswith(".html") and path.count("/") >= 2
            }

    def check_repolled_with_304(self, path: str) -> None:
        """Assert that `path` ("PORT/...") was polled again and answered 304 at least once."""
        assert self.requests[path] >= 2, f"{path} was not re-polled"
        assert self.statuses[(path, 304)] >= 1, f"{path} was never answered 304"


def build_logging_handler(log: RequestLog) -> type[DemoRequestHandler]:
    """A demo handler class that logs into `log`."""

    class LoggingDemoHandler(DemoRequestHandler):
        def send_response(self, code: int, message: str | None = None) -> None:
            origin = f"{self.server.server_address[1]}"
            log.record(f"{origin}{self.path}", code)
            super().send_response(code, message)

    return LoggingDemoHandler


@contextmanager
def serve_logged_demo() -> Iterator[tuple[list[str], RequestLog]]:
    """Serve the demo network; yield each site's RSS feed URL and the shared request log.

    Logged paths are prefixed with the site's port, since every site has the same paths.
    """
    log = RequestLog()
    servers: list[DemoSiteServer] = []
    threads: list[threading.Thread] = []
    for site in build_network():
        server = DemoSiteServer(site, "127.0.0.1", 0)
        server.RequestHandlerClass = build_logging_handler(log)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append(server)
        threads.append(thread)
    try:
        yield [f"{server.base_url}/rss.xml" for server in servers], log
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
        for thread in threads:
            thread.join(timeout=5)
