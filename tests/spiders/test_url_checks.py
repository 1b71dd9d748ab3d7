"""Each URL from a document is checked on its own before a Request is built."""

from __future__ import annotations

import pytest

from newscrawl.plain_text import to_plain_text
from newscrawl.url_checks import MAX_URL_LENGTH, find_url_problem


@pytest.mark.parametrize(
    "url",
    ["http://x.example/a", "https://x.example:8443/a?b=c#d", "HTTP://X.EXAMPLE/",
     "http://127.0.0.1:8080/news/1.html"],
)
def test_fetchable_urls_pass(url: str) -> None:
    assert find_url_problem(url) is None


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("mailto:a@example.com", "scheme 'mailto' is not http(s)"),
        ("javascript:alert(1)", "scheme 'javascript' is not http(s)"),
        ("ftp://x.example/f", "scheme 'ftp' is not http(s)"),
        ("/relative/path", "not absolute"),
        ("http://[::1/broken", "unparsable"),
        ("http://x.example:99999/", "unparsable"),
        ("http:///no-host", "no host"),
        ("http://x.example/a\nb", "control characters"),
        ("http://x.example/" + "a" * MAX_URL_LENGTH, "longer than"),
        ("", "empty"),
    ],
)
def test_unusable_urls_are_named(url: str, problem: str) -> None:
    found = find_url_problem(url)
    assert found is not None and found.startswith(problem)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("It&#8217;s Q&amp;A", "It\u2019s Q&A"),
        ("<b>Bold</b>   move", "Bold move"),
        ("&amp;lt;b&amp;gt;", "&lt;b&gt;"),  # decoded once, not twice
        ("&lt;b&gt;", "<b>"),  # escaped markup stays visible text
        ("  ", None),
    ],
)
def test_titles_become_plain_text(value: str, text: str | None) -> None:
    assert to_plain_text(value) == text
