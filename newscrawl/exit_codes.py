"""The exit status of a crawl (README, "Exit codes"), decided from its finish reason and stats."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from newscrawl.pipelines.page_spooling import CLOSE_REASON as DATABASE_UNAVAILABLE_REASON
from newscrawl.stats_keys import SOURCE_FAILED_KEYS, SOURCE_READ_KEYS, sum_stats

# Scrapy's close reason after SIGINT/SIGTERM.
SHUTDOWN_REASON = "shutdown"


class ExitCode(IntEnum):
    """What `scrapy crawl` and `newscrawl crawl` exit with."""

    FINISHED = 0
    FAILED = 1
    USAGE = 2
    DATABASE_UNAVAILABLE = 3
    SOURCES_UNREACHABLE = 4
    INTERRUPTED = 130


def is_every_source_unreachable(stats: Mapping[str, Any]) -> bool:
    """True when no feed or sitemap was read and at least one failed."""
    read = sum_stats(stats, SOURCE_READ_KEYS)
    return read == 0 and sum_stats(stats, SOURCE_FAILED_KEYS) > 0


def decide_exit_code(stats: Mapping[str, Any], *, polling: bool = False) -> ExitCode:
    """The exit code of a crawl that ran, from its final stats.

    A re-polling crawl (`every=`) only ends on a signal, so for it that is a normal end.
    """
    reason = stats.get("finish_reason")
    if reason == DATABASE_UNAVAILABLE_REASON:
        return ExitCode.DATABASE_UNAVAILABLE
    if is_every_source_unreachable(stats):
        return ExitCode.SOURCES_UNREACHABLE
    if reason == SHUTDOWN_REASON and not polling:
        return ExitCode.INTERRUPTED
    if reason is None or reason == "start_error":
        return ExitCode.FAILED
    return ExitCode.FINISHED
