"""`newscrawl extract` reads a URL (SSRF rules, the crawl's user agent) or stdin; Markdown out."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from newscrawl import settings as project_settings
from newscrawl.cli import main
from tests.evaluation.generated_dataset import STORIES, render_page

TITLE, PARAGRAPHS = next(iter(STORIES.values()))
PAGE = render_page("valley-times", TITLE, PARAGRAPHS).encode("utf-8")


class PageHandler(BaseHTTPRequestHandler):
    """/story.html: the page; /moved: a redirect to 127.0.0.1; records the user agents."""

    user_agents: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the name http.server dispatches to
        self.user_agents.append(self.headers.get("User-Agent", ""))
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{self.server.server_address[1]}/x")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


@pytest.fixture
def port() -> Iterator[int]:
    PageHandler.user_agents = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), PageHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_url_is_fetched_with_the_crawl_user_agent_once_allowed(
    port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{port}/story.html"
    assert main(["extract", url]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and "non-public" in err and err.count("\n") == 1
    assert PageHandler.user_agents == []  # refused before any request
    assert main(["extract", url, "--allow-host", "127.0.0.1"]) == 0
    assert PARAGRAPHS[0][:40] in capsys.readouterr().out
    assert PageHandler.user_agents == [project_settings.USER_AGENT]


def test_a_redirect_is_checked_before_it_is_followed(
    port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # localhost is allowed by name; the redirect goes to 127.0.0.1, which is not.
    assert main(["extract", f"http://localhost:{port}/moved", "--allow-host", "localhost"]) == 1
    err = capsys.readouterr().err
    assert "refused http://127.0.0.1:" in err and err.count("\n") == 1
    assert len(PageHandler.user_agents) == 1


def test_unreachable_url_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "http://127.0.0.1:9/x", "--allow-host", "127.0.0.1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("newscrawl extract: cannot fetch http://127.0.0.1:9/x") and (
        err.count("\n") == 1
    )


def test_stdin_and_markdown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PAGE)))
    assert main(["extract", "-", "--format", "markdown", "--url", "https://v.example/a"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {TITLE}\n\n- URL: https://v.example/a\n")
    assert PARAGRAPHS[0][:40] in out
