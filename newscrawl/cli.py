"""The `newscrawl` command line: one sub-command per module in `newscrawl.commands`."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import sys
from collections.abc import Sequence

from newscrawl.commands import crawl

# Each module exposes `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`.
COMMAND_MODULES: tuple[str, ...] = (
    "newscrawl.commands.crawl",
    "newscrawl.commands.extract",
    "newscrawl.commands.evaluate",
    "newscrawl.commands.demo",
    "newscrawl.commands.db",
    "newscrawl.commands.status",
    "newscrawl.commands.export",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every available sub-command."""
    parser = argparse.ArgumentParser(prog="newscrawl", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {read_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def read_version() -> str:
    """The installed distribution's version."""
    try:
        return importlib.metadata.version("newscrawl")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [crawl.NAME]:
        # Scrapy parses the rest: its options may come before the spider's name.
        return crawl.run_scrapy_crawl(arguments[1:])
    args = build_parser().parse_args(arguments)
    try:
        status = int(args.handler(args))
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (`newscrawl status | head`): not an error of ours. Point stdout
        # at /dev/null so that the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
