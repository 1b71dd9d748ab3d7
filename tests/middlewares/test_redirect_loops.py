"""A redirect back into its own chain is refused with a name, not silently filtered."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import Response

from newscrawl.middlewares.redirect_loops import RedirectLoop, RedirectLoopMiddleware
from tests.middlewares.building import build_middleware, stat


def redirect(request: Request, location: str, status: int = 302) -> Response:
    return Response(request.url, status=status, headers={"Location": location}, request=request)


def test_a_loop_is_refused_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    middleware, crawler = build_middleware(RedirectLoopMiddleware)
    request = Request("https://n.example/b", meta={"redirect_urls": ["https://n.example/a"]})
    with pytest.raises(RedirectLoop, match="https://n.example/a -> https://n.example/b -> "):
        middleware.process_response(request, redirect(request, "/a"))
    assert "Redirect loop: https://n.example/a -> https://n.example/b -> https://n.example/a" in (
        caplog.text
    )
    assert stat(crawler, "newscrawl/redirect_loops/loop") == 1


def test_a_self_redirect_is_a_loop() -> None:
    middleware, _ = build_middleware(RedirectLoopMiddleware)
    request = Request("https://n.example/feed.xml")
    with pytest.raises(RedirectLoop):
        middleware.process_response(request, redirect(request, "feed.xml", 301))


def test_ordinary_redirects_and_pages_pass() -> None:
    middleware, crawler = build_middleware(RedirectLoopMiddleware)
    request = Request("https://n.example/a")
    moved = redirect(request, "https://n.example/new-home")
    assert middleware.process_response(request, moved) is moved
    page = Response(request.url, status=200, request=request)
    assert middleware.process_response(request, page) is page
    assert stat(crawler, "newscrawl/redirect_loops/loop") == 0
