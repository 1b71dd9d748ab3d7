"""The `newscrawl` command line: one sub-command per module in `newscrawl.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module exposes `NAME`, `HELP`, `add_arguments(parser)` and `run(args) -> int`.
COMMAND_MODULES: tuple[str, ...] = (
    "newscrawl.commands.extract",
    "newscrawl.commands.evaluate",
    "newscrawl.commands.demo",
    "newscrawl.commands.db",
    "newscrawl.commands.status",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every available sub-command."""
    parser = argparse.ArgumentParser(prog="newscrawl", description=__doc__)
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
