"""`newscrawl extract`: print the article of one saved page, optionally using its neighbours."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from newscrawl.extraction import Article, extract, learn_static_noise

NAME = "extract"
HELP = "Extract the article of a saved HTML page (neighbour mode with --neighbours)."
FORMATS = ("text", "html", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("page", type=Path, metavar="PAGE.html")
    parser.add_argument(
        "--neighbours", nargs="+", type=Path, default=[], metavar="FILE",
        help="other pages of the same site and section, to learn its static noise from",
    )
    parser.add_argument("--title", help="the article title, as a feed would give it")
    parser.add_argument("--url", help="the page's address (resolves links, dates from URLs)")
    parser.add_argument("--format", choices=FORMATS, default="text", dest="output_format")


def article_to_json(article: Article) -> dict[str, Any]:
    """Return the article as a JSON-ready dict (dates in ISO 8601)."""
    document = asdict(article)
    for key, value in document.items():
        if isinstance(value, datetime):
            document[key] = value.isoformat()
    return document


def run(args: argparse.Namespace) -> int:
    """Extract the page and print it in the requested format."""
    try:
        # Bytes, not text: the engine decodes them as the page declares (BOM, <meta charset>).
        page = args.page.read_bytes()
        neighbours = [path.read_bytes() for path in args.neighbours]
    except OSError as exc:
        print(f"newscrawl extract: {exc}", file=sys.stderr)
        return 2
    template = learn_static_noise(neighbours) if neighbours else None
    article = extract(page, url=args.url, title=args.title, template=template)
    if args.output_format == "json":
        output = json.dumps(article_to_json(article), ensure_ascii=False, indent=2)
    elif args.output_format == "html":
        output = article.html
    else:
        # The headline is printed first unless the text already starts with it.
        show_title = article.title and not article.text.startswith(article.title)
        output = f"{article.title}\n\n{article.text}" if show_title else article.text
    sys.stdout.write(output.rstrip("\n") + "\n")
    return 0
