from __future__ import annotations

import logging
from pathlib import Path

import pytest

from newscrawl.feeds_file import FeedsFileLine, read_feeds_file
from newscrawl.spider_arguments import CrawlArgumentError


def test_url_and_category_split_on_any_whitespace_with_bom_and_comments(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "feeds.txt"
    text = (
        "# world desk\n"
        "https://a.example/rss.xml    World  News\n"
        "https://b.example/atom.xml\tsport # the sport desk\n"
        "   \n"
        "https://c.example/feed\n"
        "not a url\n"
        "https://a.example/rss.xml politics\n"
    )
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    with caplog.at_level(logging.WARNING):
        feeds = read_feeds_file(path)

    assert feeds == [
        FeedsFileLine("https://a.example/rss.xml", "world news", 2),
        FeedsFileLine("https://b.example/atom.xml", "sport", 3),
        FeedsFileLine("https://c.example/feed", None, 5),
    ]
    assert f"Skipping line 6 of feeds file {path}: 'not' is no http(s) URL" in caplog.text
    assert f"Skipping line 7 of feeds file {path}: https://a.example/rss.xml is listed twice" in (
        caplog.text
    )


@pytest.mark.parametrize(
    ("name", "problem"),
    [("missing.txt", "no such file"), ("", "a directory"), ("latin1.txt", "not UTF-8 (byte 8)")],
)
def test_unreadable_feeds_file_is_a_one_line_error(
    tmp_path: Path, name: str, problem: str
) -> None:
    path = tmp_path / name if name else tmp_path
    if name == "latin1.txt":
        path.write_bytes(b"https://\xe9.example/rss.xml\n")
    with pytest.raises(CrawlArgumentError) as raised:
        read_feeds_file(path)
    message = str(raised.value)
    assert message.startswith(f"-a feeds={path}: {problem}; expected a readable UTF-8 text file")
    assert "\n" not in message
