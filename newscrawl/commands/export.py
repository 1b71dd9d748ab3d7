"""`newscrawl export`: stream stored articles as JSON Lines, CSV or Markdown."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from dateutil import parser as date_parser
from sqlalchemy import Engine, Select, func, select
from sqlalchemy.orm import Session
from tqdm import tqdm

from newscrawl.article_export import (
    CSV_LIST_SEPARATOR,
    build_export_record,
    format_markdown,
    list_export_fields,
)
from newscrawl.commands.store_access import (
    DATABASE_URL_HELP,
    StoreUnavailable,
    open_read_only_store,
    resolve_database_url,
)
from newscrawl.storage.models import Article

NAME = "export"
HELP = "Export stored articles as JSON Lines, CSV or Markdown, with a progress bar on stderr."
FORMATS = ("jsonl", "csv", "markdown")
# Rows fetched per round trip: memory stays flat however many articles there are.
BATCH_SIZE = 500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("--format", choices=FORMATS, default="jsonl", dest="output_format")
    parser.add_argument(
        "--since", type=parse_since, metavar="DATE",
        help="only articles published (else fetched) on or after DATE, e.g. 2024-05-01",
    )
    parser.add_argument("--site", help="only this site's articles, e.g. example.com")
    parser.add_argument(
        "--output", "-o", type=Path, metavar="FILE", help="write here instead of stdout"
    )
    parser.add_argument("--html", action="store_true", help="add the article's cleaned HTML")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--database-url", default=None, help=DATABASE_URL_HELP)


def parse_since(value: str) -> datetime:
    """A date or time, naive ones in UTC."""
    try:
        parsed = date_parser.isoparse(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a date: expected YYYY-MM-DD or an ISO 8601 time, e.g. 2024-05-01"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def run(args: argparse.Namespace) -> int:
    """Write the selected articles and return the exit status."""
    try:
        engine = open_read_only_store(resolve_database_url(args.database_url))
    except StoreUnavailable as exc:
        print(f"newscrawl export: {exc}", file=sys.stderr)
        return exc.exit_status
    try:
        with ExitStack() as stack:
            if args.output is None:
                output: IO[str] = sys.stdout
            else:
                output = stack.enter_context(
                    args.output.open("w", encoding="utf-8", newline="")
                )
            count = write_articles(
                engine, output, output_format=args.output_format, since=args.since,
                site=args.site, with_html=args.html, progress=not args.quiet,
            )
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        print(f"newscrawl export: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    if args.output is not None:
        print(f"Exported {count} articles to {args.output}", file=sys.stderr)
    return 0


def select_articles(since: datetime | None, site: str | None) -> Select[Any]:
    """The articles to export, oldest first."""
    statement = select(Article).order_by(Article.id)
    if since is not None:
        # Stored times are naive UTC.
        naive = since.astimezone(UTC).replace(tzinfo=None)
        statement = statement.where(
            func.coalesce(Article.published_at, Article.fetched_at) >= naive
        )
    if site is not None:
        statement = statement.where(Article.site == site)
    return statement


def write_articles(
    engine: Engine,
    output: IO[str],
    *,
    output_format: str,
    since: datetime | None = None,
    site: str | None = None,
    with_html: bool = False,
    progress: bool = True,
) -> int:
    """Stream the matching articles to `output`; return how many were written."""
    statement = select_articles(since, site)
    with Session(engine) as session:
        total = session.scalar(select(func.count()).select_from(statement.subquery()))
        records = _stream_records(session, statement, with_html)
        bar = tqdm(
            records, total=total, unit=" articles", file=sys.stderr, disable=not progress
        )
        writer = _build_writer(output, output_format, with_html)
        count = 0
        for record in bar:
            writer(record)
            count += 1
        bar.close()
    return count


def _stream_records(
    session: Session, statement: Select[Any], with_html: bool
) -> Iterator[dict[str, Any]]:
    for article in session.scalars(statement.execution_options(yield_per=BATCH_SIZE)):
        yield build_export_record(article, with_html=with_html)


def _build_writer(output: IO[str], output_format: str, with_html: bool) -> Any:
    if output_format == "csv":
        csv_writer = csv.DictWriter(output, fieldnames=list_export_fields(with_html=with_html))
        csv_writer.writeheader()

        def write_csv(record: dict[str, Any]) -> None:
            csv_writer.writerow({
                key: CSV_LIST_SEPARATOR.join(value) if isinstance(value, list) else value
                for key, value in record.items()
            })

        return write_csv
    if output_format == "markdown":
        first = [True]

        def write_markdown(record: dict[str, Any]) -> None:
            if not first[0]:
                output.write("\n---\n\n")
            first[0] = False
            output.write(format_markdown(record))

        return write_markdown

    def write_jsonl(record: dict[str, Any]) -> None:
        output.write(json.dumps(record, ensure_ascii=False) + "\n")

    return write_jsonl
