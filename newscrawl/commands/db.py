"""`newscrawl db upgrade|current`: manage the article store's schema."""

from __future__ import annotations

import argparse
import os

from newscrawl.storage.engine import DEFAULT_DATABASE_URL, create_database_engine
from newscrawl.storage.migrations import read_current_revision, read_head_revision, upgrade_database

NAME = "db"
HELP = "Migrate the article database (upgrade) or show its schema revision (current)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `db` sub-command's arguments."""
    parser.add_argument("action", choices=("upgrade", "current"), help="what to do")
    parser.add_argument(
        "--database-url",
        default=None,
        help=f"SQLAlchemy URL (default: $NEWSCRAWL_DATABASE_URL, else {DEFAULT_DATABASE_URL})",
    )


def run(args: argparse.Namespace) -> int:
    """Run `db upgrade` or `db current` and return the exit status."""
    url = args.database_url or os.environ.get("NEWSCRAWL_DATABASE_URL") or DEFAULT_DATABASE_URL
    engine = create_database_engine(url)
    try:
        if args.action == "upgrade":
            upgrade_database(engine)
        current = read_current_revision(engine)
    finally:
        engine.dispose()
    head = read_head_revision()
    state = "up to date" if current == head else f"head is {head}"
    where = engine.url.render_as_string(hide_password=True)
    print(f"{where}: revision {current or 'none'} ({state})")
    return 0
