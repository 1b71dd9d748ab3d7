"""Plumbing shared by the loopback demo servers: daemon-thread serving and plain text answers."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Generic, Self, TypeVar

ServerT = TypeVar("ServerT", bound=ThreadingHTTPServer)


class TextRequestHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers with whole text bodies."""

    def send_text(self, status: int, content_type: str, text: str) -> None:
        """Answer with `text` encoded as UTF-8, its length announced."""
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Stay quiet: the crawler logs what matters."""


class ServerGroup(Generic[ServerT]):
    """HTTP servers run in daemon threads, stopped together; a context manager."""

    def __init__(self) -> None:
        self._servers: list[ServerT] = []
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Bind and serve every server of the group."""
        raise NotImplementedError

    def serve(self, server: ServerT, name: str) -> None:
        """Serve `server` in a daemon thread called `name` until `stop`."""
        thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
        thread.start()
        self._servers.append(server)
        self._threads.append(thread)

    def stop(self) -> None:
        """Stop serving and release the ports."""
        for server in self._servers:
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)
        self._servers.clear()
        self._threads.clear()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
