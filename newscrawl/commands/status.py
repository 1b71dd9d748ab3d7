"""`newscrawl status`: feeds with polls and failures, pending groups, articles, recent runs."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from newscrawl.commands.store_access import (
    DATABASE_URL_HELP,
    StoreUnavailable,
    open_read_only_store,
    resolve_database_url,
)
from newscrawl.storage.status_report import StatusReport, read_status_report

NAME = "status"
HELP = "Summarise the crawl store: feeds, pending groups, articles per site, recent runs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `status` sub-command's arguments."""
    parser.add_argument("--database-url", default=None, help=DATABASE_URL_HELP)
    parser.add_argument("--runs", type=int, default=5, help="recent crawl runs to show")
    parser.add_argument(
        "--site", help="only this site's feeds, pending groups and articles (e.g. example.com)"
    )
    parser.add_argument("--feed", help="only the feeds whose URL contains this text")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    """Print the status of the store; 2 when there is none to read, 1 when it is unreachable."""
    try:
        engine = open_read_only_store(resolve_database_url(args.database_url))
    except StoreUnavailable as exc:
        print(f"newscrawl status: {exc}", file=sys.stderr)
        return exc.exit_status
    try:
        report = read_status_report(engine, run_limit=args.runs)
    finally:
        engine.dispose()
    report = filter_report(report, site=args.site, feed=args.feed)
    if args.json:
        print(json.dumps(report_to_json(report), indent=2, ensure_ascii=False))
    else:
        print(format_status(report, now=datetime.now(UTC)))
    return 0


def filter_report(report: StatusReport, *, site: str | None, feed: str | None) -> StatusReport:
    """Keep one site's rows (exact name) and the feeds whose URL contains `feed`."""
    feeds = report.feeds
    pending, sites = report.pending_groups, report.sites
    if site is not None:
        feeds = [f for f in feeds if f.site == site]
        pending = [g for g in pending if g.site == site]
        sites = [s for s in sites if s.site == site]
    if feed is not None:
        feeds = [f for f in feeds if feed in f.url]
    return dataclasses.replace(report, feeds=feeds, pending_groups=pending, sites=sites)


def report_to_json(report: StatusReport) -> dict[str, Any]:
    """The report as JSON-ready lists of rows, times in ISO 8601 UTC."""

    def convert(value: Any) -> Any:
        if isinstance(value, datetime):
            return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
        return value

    return {
        field.name: [
            {key: convert(value) for key, value in dataclasses.asdict(row).items()}
            for row in getattr(report, field.name)
        ]
        for field in dataclasses.fields(report)
    }


def format_status(report: StatusReport, *, now: datetime) -> str:
    """The report as plain-text tables."""
    sections = [
        _format_feeds(report, now),
        _format_table(
            f"Pending groups ({sum(g.pending for g in report.pending_groups)} pages)",
            ("group", "pages"),
            [(g.group_key, str(g.pending)) for g in report.pending_groups],
        ),
        _format_table(
            f"Articles ({sum(s.articles for s in report.sites)})",
            ("site", "articles", "last extracted"),
            [(s.site, str(s.articles), _format_time(s.last_extracted_at)) for s in report.sites],
        ),
        _format_table(
            "Recent crawl runs",
            ("id", "spider", "worker", "started", "finished", "reason", "pages", "articles"),
            [
                (
                    str(r.id), r.spider, r.worker, _format_time(r.started_at),
                    _format_time(r.finished_at), r.finish_reason or r.state,
                    _format_count(r.pages_fetched), _format_count(r.articles_stored),
                )
                for r in report.runs
            ],
        ),
    ]
    return "\n\n".join(sections)


def _format_feeds(report: StatusReport, now: datetime) -> str:
    dead = sum(1 for feed in report.feeds if feed.is_dead)
    due = sum(
        1 for feed in report.feeds
        if not feed.is_dead and feed.next_poll_at is not None and feed.next_poll_at <= now
    )
    rows = []
    for feed in report.feeds:
        state = "DEAD" if feed.is_dead else ("failing" if feed.failure_count else "ok")
        rows.append((
            feed.url, state, _format_time(feed.last_polled_at), _format_time(feed.next_poll_at),
            _format_interval(feed.interval_seconds), str(feed.failure_count),
            f"{feed.entries_new}/{feed.entries_seen}", str(feed.not_modified),
            (feed.last_error or "")[:60],
        ))
    return _format_table(
        f"Feeds ({len(report.feeds)}, {due} due, {dead} dead)",
        ("feed", "state", "last poll", "next poll", "interval", "failures", "new/seen",
         "304s", "last error"),
        rows,
    )


def _format_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    if not rows:
        return f"{title}\n  (none)"
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(len(header))]
    header_line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    lines = [title, "  " + header_line.rstrip()]
    lines.extend(
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
    return "\n".join(lines)


def _format_time(value: datetime | None) -> str:
    if value is None:
        return "-"
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _format_interval(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{seconds:.0f}s"


def _format_count(value: int | None) -> str:
    return "-" if value is None else str(value)
