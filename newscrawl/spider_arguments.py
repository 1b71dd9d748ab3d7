"""Check the spiders' `-a` arguments and the crawl's `-s` settings before anything starts.

Each mistake raises CrawlArgumentError with one line for the user: what is wrong, what was
expected and an example. The project's `crawl` command prints that line and exits 2.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterable
from datetime import datetime
from urllib.parse import urlsplit

from scrapy.settings import BaseSettings
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from newscrawl.poll_schedule import IntervalError, parse_interval
from newscrawl.sitemaps import parse_w3c_datetime

DATABASE_BACKENDS = ("sqlite", "postgresql")
DATABASE_EXAMPLE = "sqlite:///newscrawl.db or postgresql+psycopg://user@host/db"
INTERVAL_SETTINGS = (
    "NEWSCRAWL_POLL_INTERVAL",
    "NEWSCRAWL_POLL_MIN_INTERVAL",
    "NEWSCRAWL_POLL_MAX_INTERVAL",
)


class CrawlArgumentError(ValueError):
    """A bad spider argument or setting; the message is one line meant for the user."""


def describe_argument(name: str, value: object) -> str:
    """How the user wrote a spider argument: -a name=value."""
    return f"-a {name}={value}"


def check_argument_names(spider: str, given: Iterable[str], known: Collection[str]) -> None:
    """Refuse an argument the spider does not take, suggesting the closest known one."""
    for name in given:
        # Scrapyd and other schedulers pass their own _job-style arguments.
        if name in known or name.startswith("_"):
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f"did you mean -a {close[0]}=...?" if close else "it takes no such argument."
        raise CrawlArgumentError(
            f"unknown argument -a {name}=... for the {spider} spider: {hint}"
            f" It takes {', '.join(sorted(known))}."
        )


def require_web_url(name: str, value: str) -> str:
    """The value, when it is an absolute http(s) URL with a host."""
    text = value.strip()
    parts = urlsplit(text)
    if parts.scheme in ("http", "https") and parts.netloc:
        return text
    raise CrawlArgumentError(
        f"{describe_argument(name, value)}: expected an http(s) URL,"
        f" for example -a {name}=https://example.com/rss.xml"
    )


def check_interval(option: str, value: str) -> float:
    """Seconds of a poll interval such as 15m; `option` names where the user wrote it."""
    try:
        return parse_interval(value)
    except IntervalError:
        raise CrawlArgumentError(
            f"{option}: expected a positive interval with an optional s/m/h/d unit,"
            " for example 30s, 15m, 1h or 1d"
        ) from None


def parse_since(value: str) -> datetime:
    """The date a `since` argument names."""
    parsed = parse_w3c_datetime(value.strip())
    if parsed is None:
        raise CrawlArgumentError(
            f"{describe_argument('since', value)}: expected a date,"
            " for example -a since=2026-11-01 or -a since=2026-11-01T08:00:00Z"
        )
    return parsed


def compile_pattern(name: str, value: str) -> re.Pattern[str]:
    """The compiled regular expression of an `allow` or `deny` argument."""
    try:
        return re.compile(value)
    except re.error as exc:
        raise CrawlArgumentError(
            f"{describe_argument(name, value)}: expected a regular expression ({exc}),"
            f" for example -a {name}='/news/|/world/'"
        ) from None


def parse_integer(name: str, value: int | str) -> int:
    """The integer value of a numeric argument."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CrawlArgumentError(
            f"{describe_argument(name, value)}: expected a whole number, for example -a {name}=1"
        ) from None


def check_database_url(url: str | None) -> None:
    """Refuse a NEWSCRAWL_DATABASE_URL that is no SQLite or PostgreSQL URL."""
    if not url:
        return
    problem = f"-s NEWSCRAWL_DATABASE_URL={url}: expected a database URL such as {DATABASE_EXAMPLE}"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise CrawlArgumentError(problem) from None
    if parsed.get_backend_name() not in DATABASE_BACKENDS:
        raise CrawlArgumentError(problem)


def check_crawl_settings(settings: BaseSettings) -> None:
    """Refuse settings a crawl cannot start with: the database URL and the poll intervals."""
    check_database_url(settings.get("NEWSCRAWL_DATABASE_URL"))
    for name in INTERVAL_SETTINGS:
        value = settings.get(name)
        if value not in (None, ""):
            check_interval(f"-s {name}={value}", str(value))
