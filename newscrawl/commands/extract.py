"""`newscrawl extract`: print the article of one page (a file, a URL or stdin).

Optionally it uses the page's neighbours, other pages of the same site and section."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from scrapy.settings import Settings

from newscrawl.article_export import format_markdown
from newscrawl.commands.page_fetch import FetchRules, PageFetchError, fetch_page
from newscrawl.extraction import Article, extract, learn_static_noise

NAME = "extract"
HELP = (
    "Extract the article of an HTML page: a file, an http(s) URL or - for stdin"
    " (neighbour mode with --neighbours)."
)
FORMATS = ("text", "html", "json", "markdown")
URL_SCHEMES = ("http://", "https://")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument(
        "page", metavar="PAGE",
        help="an HTML file, an http(s) URL (fetched as the crawl would) or - for stdin",
    )
    parser.add_argument(
        "--neighbours", nargs="+", type=Path, default=[], metavar="FILE",
        help="other pages of the same site and section, to learn its static noise from",
    )
    parser.add_argument("--title", help="the article title, as a feed would give it")
    parser.add_argument("--url", help="the page's address (resolves links, dates from URLs)")
    parser.add_argument("--format", choices=FORMATS, default="text", dest="output_format")
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="HOST",
        help="fetch from this host or network although it is not public (as"
        " NEWSCRAWL_SSRF_ALLOWLIST), e.g. 127.0.0.1",
    )


def article_to_json(article: Article) -> dict[str, Any]:
    """Return the article as a JSON-ready dict (dates in ISO 8601)."""
    document = asdict(article)
    for key, value in document.items():
        if isinstance(value, datetime):
            document[key] = value.isoformat()
    return document


def build_fetch_rules(allowed_hosts: list[str]) -> FetchRules:
    """The crawl's fetch rules (project settings), with the hosts allowed on the command line."""
    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    return FetchRules.from_settings(settings, allowed_hosts)


def run(args: argparse.Namespace) -> int:
    """Extract the page and print it in the requested format."""
    url = args.url
    try:
        # Bytes, not text: the engine decodes them as the page declares (BOM, <meta charset>).
        if args.page == "-":
            page = sys.stdin.buffer.read()
        elif args.page.startswith(URL_SCHEMES):
            fetched = fetch_page(args.page, build_fetch_rules(args.allow_host))
            page, url = fetched.body, url or fetched.url
        else:
            page = Path(args.page).read_bytes()
        neighbours = [path.read_bytes() for path in args.neighbours]
    except PageFetchError as exc:
        print(f"newscrawl extract: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"newscrawl extract: {exc}", file=sys.stderr)
        return 2
    template = learn_static_noise(neighbours) if neighbours else None
    article = extract(page, url=url, title=args.title, template=template)
    if args.output_format == "markdown":
        output = format_markdown({
            "title": article.title, "url": article.canonical_url or url,
            "published_at": article.published.isoformat() if article.published else None,
            "authors": article.authors, "language": article.language, "text": article.text,
        })
    elif args.output_format == "json":
        output = json.dumps(article_to_json(article), ensure_ascii=False, indent=2)
    elif args.output_format == "html":
        output = article.html
    else:
        # The headline is printed first unless the text already starts with it.
        show_title = article.title and not article.text.startswith(article.title)
        output = f"{article.title}\n\n{article.text}" if show_title else article.text
    sys.stdout.write(output.rstrip("\n") + "\n")
    return 0
