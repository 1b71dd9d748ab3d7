"""Feeds files (`-a feeds=FILE`): one feed URL per line, an optional category after it.

The URL and the category are separated by any whitespace; a UTF-8 byte order mark, blank
lines and `#` comments are ignored. A line that names no http(s) URL is skipped and
reported with its line number; a file that cannot be read is a CrawlArgumentError.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from newscrawl.categories import normalize_category
from newscrawl.spider_arguments import CrawlArgumentError, describe_argument, require_web_url

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedsFileLine:
    """A feed read from a feeds file: its URL, the category given (if any), its line number."""

    url: str
    category: str | None
    line_number: int


def read_feeds_file(path: str | Path) -> list[FeedsFileLine]:
    """The feeds a file lists, in order, each URL once; skipped lines are logged."""
    text = load_feeds_text(path)
    feeds: list[FeedsFileLine] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        content = strip_comment(line)
        if not content:
            continue
        url, _, category = content.partition(" ")
        try:
            url = require_web_url("feeds", url)
        except CrawlArgumentError:
            logger.warning(
                "Skipping line %d of feeds file %s: %r is no http(s) URL", number, path, url
            )
            continue
        if url in seen:
            logger.warning(
                "Skipping line %d of feeds file %s: %s is listed twice", number, path, url
            )
            continue
        seen.add(url)
        feeds.append(FeedsFileLine(url, normalize_category(category) or None, number))
    return feeds


def load_feeds_text(path: str | Path) -> str:
    """The text of a feeds file, without a byte order mark; unreadable is a usage error."""
    expected = "expected a readable UTF-8 text file, for example -a feeds=feeds.txt"
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        problem = "no such file"
    except IsADirectoryError:
        problem = "a directory"
    except OSError as exc:
        problem = exc.strerror or str(exc)
    else:
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            problem = f"not UTF-8 (byte {exc.start})"
    raise CrawlArgumentError(f"{describe_argument('feeds', path)}: {problem}; {expected}")


def strip_comment(line: str) -> str:
    """The line without its comment (a `#` at its start or after whitespace), whitespace
    collapsed to single spaces."""
    words: list[str] = []
    for word in line.split():
        if word.startswith("#"):
            break
        words.append(word)
    return " ".join(words)
