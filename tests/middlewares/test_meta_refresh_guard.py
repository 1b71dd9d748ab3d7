"""Meta refreshes that would lose the page are ignored; ordinary ones are left to Scrapy."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse

from newscrawl.middlewares.meta_refresh_guard import MetaRefreshGuardMiddleware
from tests.middlewares.building import build_middleware, stat

URL = "https://n.example/live"


def page_refreshing_to(target: str, request: Request) -> HtmlResponse:
    body = f'<html><head><meta http-equiv="refresh" content="5;url={target}"></head></html>'
    return HtmlResponse(URL, body=body.encode(), encoding="utf-8", request=request)


@pytest.mark.parametrize(
    "target", ["javascript:alert(1)", "data:text/html,x", "/live", "/live#top", URL]
)
def test_refreshes_that_would_lose_the_page_are_ignored(
    target: str, caplog: pytest.LogCaptureFixture
) -> None:
    guard, crawler = build_middleware(MetaRefreshGuardMiddleware)
    request = Request(URL)
    response = page_refreshing_to(target, request)
    assert guard.process_response(request, response) is response
    assert request.meta["dont_redirect"] is True
    assert f"Ignoring the meta refresh of {URL}" in caplog.text
    assert stat(crawler, "newscrawl/meta_refresh_guard/ignored") == 1


def test_a_refresh_back_into_the_redirect_chain_is_ignored() -> None:
    guard, _ = build_middleware(MetaRefreshGuardMiddleware)
    request = Request(URL, meta={"redirect_urls": ["https://n.example/start"]})
    guard.process_response(request, page_refreshing_to("/start", request))
    assert request.meta["dont_redirect"] is True


def test_an_ordinary_refresh_is_left_to_scrapy() -> None:
    guard, crawler = build_middleware(MetaRefreshGuardMiddleware)
    request = Request(URL)
    guard.process_response(request, page_refreshing_to("/moved-here", request))
    assert "dont_redirect" not in request.meta
    assert stat(crawler, "newscrawl/meta_refresh_guard/ignored") == 0
