"""A loopback HTTP server that answers with the hostile corpus and records what was asked."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

from tests.hostile.corpus import Route, build_routes


class HostileServer(ThreadingHTTPServer):
    """Serve the hostile corpus on 127.0.0.1 on a free port."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), HostileRequestHandler)
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}"
        self.routes: dict[str, Route] = build_routes(self.base_url)
        self.requested: list[str] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.shutdown()
        self.server_close()

    def handle_error(self, request: object, client_address: object) -> None:
        """Stay quiet: clients hanging up on a stalled answer is part of the corpus."""

    def record(self, path: str) -> None:
        with self.lock:
            self.requested.append(path)


class HostileRequestHandler(BaseHTTPRequestHandler):
    """Answer GET from the route table; unknown paths are 404."""

    server: HostileServer

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        self.server.record(self.path)
        route = self.server.routes.get(self.path.split("?", 1)[0], Route(status=404))
        if route.stall:
            time.sleep(route.stall)
        try:
            self.send_response(route.status)
            if route.content_type:
                self.send_header("Content-Type", route.content_type)
            for name, value in route.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            self.wfile.write(route.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the crawler gave up on a stalled answer, as it should

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: the test reads what was requested from the server instead."""
