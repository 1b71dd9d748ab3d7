"""Bad bodies are named and counted, never dropped; wrong charsets are repaired."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, Response, TextResponse

from newscrawl.middlewares.response_guard import (
    ResponseGuardMiddleware,
    decode_mixed_utf8,
    find_body_problem,
)
from tests.middlewares.building import build_middleware, stat

URL = "https://n.example/a"
REQUEST = Request(URL)
PAGE = "<html><head><title>Т</title></head><body><p>Городской совет одобрил.</p></body></html>"


def respond(body: bytes, content_type: str = "text/html; charset=utf-8") -> HtmlResponse:
    headers = {"Content-Type": content_type}
    return HtmlResponse(URL, body=body, headers=headers, request=REQUEST)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"", "empty"), (b"  \n\t", "empty"), (b"%PDF-1.7\n...", "binary"),
        (b"\x89PNG\r\n\x1a\n", "binary"), (b"<html>\x00\x01\x02</html>", "binary"),
        (b"<html><body>ok</body></html>", None),
        ("\ufeff<html>ok</html>".encode("utf-16"), None),
        # UTF-16/32 feeds, with a BOM or (XML) without one, are text.
        ("\ufeff<rss/>".encode("utf-16-be"), None),
        ("\ufeff<rss/>".encode("utf-32-le"), None),
        ("\ufeff<rss/>".encode("utf-32-be"), None),
        ('<?xml version="1.0" encoding="UTF-16"?><rss/>'.encode("utf-16-le"), None),
        ('<?xml version="1.0" encoding="UTF-16"?><rss/>'.encode("utf-16-be"), None),
        ('<?xml version="1.0"?><rss/>'.encode("utf-32-be"), None),
    ],
)
def test_find_body_problem(body: bytes, problem: str | None) -> None:
    assert find_body_problem(body) == problem


def test_bad_bodies_pass_through_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    guard, crawler = build_middleware(ResponseGuardMiddleware)
    response = respond(b"%PDF-1.4 binary")
    assert guard.process_response(REQUEST, response) is response
    assert f"Bad response body (binary) at {URL}" in caplog.text
    assert stat(crawler, "newscrawl/response_guard/binary_body") == 1


def test_a_wrong_header_charset_is_repaired() -> None:
    guard, crawler = build_middleware(ResponseGuardMiddleware)
    response = respond(PAGE.encode("cp1251"))
    repaired = guard.process_response(REQUEST, response)
    assert isinstance(repaired, TextResponse)
    assert "Городской совет" in repaired.text
    assert stat(crawler, "newscrawl/response_guard/charset_repaired") == 1


def test_stray_latin1_bytes_in_utf8_are_re_decoded() -> None:
    text = "<p>Grüße aus Köln, where the council met on Tuesday.</p>"
    body = text.encode() + " caf\u00e9".encode("latin-1")
    assert decode_mixed_utf8(body) == text + " café"
    assert decode_mixed_utf8("Город".encode("cp1251") + b" and a little ASCII") is None
    assert decode_mixed_utf8(body * 100) is None
    guard, crawler = build_middleware(ResponseGuardMiddleware)
    response = respond(b"<html><body>" + body + b"</body></html>")
    repaired = guard.process_response(REQUEST, response)
    assert isinstance(repaired, TextResponse) and "Tuesday.</p> café" in repaired.text
    assert stat(crawler, "newscrawl/response_guard/charset_mixed") == 1


def test_good_and_non_text_responses_are_untouched() -> None:
    guard, crawler = build_middleware(ResponseGuardMiddleware)
    good = respond(PAGE.encode())
    assert guard.process_response(REQUEST, good) is good
    gzip_sitemap = Response(URL, body=b"\x1f\x8b\x08...", request=REQUEST)
    assert guard.process_response(REQUEST, gzip_sitemap) is gzip_sitemap
    assert crawler.stats is not None and not any(
        key.startswith("newscrawl/") for key in crawler.stats.get_stats()
    )
