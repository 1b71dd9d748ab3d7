"""`newscrawl status`: feeds with polls and failures, pending groups, articles, recent runs."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import UTC, datetime

from newscrawl.storage.engine import DEFAULT_DATABASE_URL, create_database_engine
from newscrawl.storage.migrations import read_current_revision, read_head_revision
from newscrawl.storage.status_report import StatusReport, read_status_report

NAME = "status"
HELP = "Summarise the crawl store: feeds, pending groups, articles per site, recent runs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `status` sub-command's arguments."""
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy URL (default: $NEWSCRAWL_DATABASE_URL, else sqlite:///newscrawl.db)",
    )
    parser.add_argument("--runs", type=int, default=5, help="recent crawl runs to show")


def run(args: argparse.Namespace) -> int:
    """Print the status of the store; 2 when its schema is missing or outdated."""
    url = args.database_url or os.environ.get("NEWSCRAWL_DATABASE_URL") or DEFAULT_DATABASE_URL
    engine = create_database_engine(url)
    try:
        current, head = read_current_revision(engine), read_head_revision()
        if current != head:
            print(
                f"The database is at revision {current or 'none'}, not {head}:"
                " run `newscrawl db upgrade` (or a crawl) first."
            )
            return 2
        report = read_status_report(engine, run_limit=args.runs)
    finally:
        engine.dispose()
    print(format_status(report, now=datetime.now(UTC)))
    return 0


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
