"""`newscrawl crawl SPIDER [-a NAME=VALUE] [-s NAME=VALUE] [-O FILE] [-L LEVEL]`: `scrapy crawl`.

It runs Scrapy's own command line with the project's settings, so it works from any directory
(Scrapy needs a scrapy.cfg for that), takes every option `scrapy crawl` takes, runs whatever
`crawl` command the project registers (COMMANDS_MODULE), and exits with its status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

NAME = "crawl"
HELP = "Run a spider (rss, sitemap) as `scrapy crawl` does, from any directory."
SETTINGS_MODULE = "newscrawl.settings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Everything after `crawl` goes to Scrapy, which parses and documents it (`--help`)."""
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="as for `scrapy crawl`")


def run(args: argparse.Namespace) -> int:
    """Run `scrapy crawl` with the arguments and return its exit status."""
    return run_scrapy_crawl(args.arguments)


def run_scrapy_crawl(arguments: Sequence[str]) -> int:
    """Run Scrapy's command line as `scrapy crawl ARGUMENTS` with the project's settings."""
    from scrapy.cmdline import execute

    # Scrapy finds its project through this variable when there is no scrapy.cfg around.
    os.environ["SCRAPY_SETTINGS_MODULE"] = SETTINGS_MODULE
    try:
        execute(["scrapy", NAME, *arguments])
    except SystemExit as exit_request:
        return exit_status(exit_request.code)
    return 0


def exit_status(code: object) -> int:
    """sys.exit's argument as a process exit status (a message is printed, then status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
