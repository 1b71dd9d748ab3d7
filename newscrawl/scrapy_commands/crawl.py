"""`scrapy crawl` with honest exit codes and one-line errors for bad arguments and settings."""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler
from scrapy.exceptions import UsageError
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from newscrawl.exit_codes import ExitCode, decide_exit_code
from newscrawl.spider_arguments import CrawlArgumentError

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCrawlCommand):
    """Run a spider; the exit code says how the crawl ended (README, "Exit codes")."""

    def long_desc(self) -> str:
        return (
            "Run a spider of the project. Exit codes: 0 finished, 1 failed, 2 bad arguments"
            " or settings, 3 database unavailable, 4 every feed or sitemap unreachable,"
            " 130 interrupted."
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError(
                "expected one spider name, for example: crawl rss -a feed=URL", print_help=False
            )
        assert self.crawler_process is not None
        known = self.crawler_process.spider_loader.list()
        if args[0] not in known:
            print(f"error: no spider named {args[0]!r}: expected one of {', '.join(sorted(known))},"
                  " for example: crawl rss -a feed=URL", file=sys.stderr)
            self.exitcode = ExitCode.USAGE
            return
        crawler = self._create_crawler(args[0])
        outcome = CrawlOutcome()
        outcome.watch(self.crawler_process.crawl(crawler, **opts.spargs))
        self.crawler_process.start()
        failed = self.crawler_process.bootstrap_failed
        self.exitcode = outcome.decide(crawler, bootstrap_failed=failed)


class CrawlOutcome:
    """Collects how a crawl ended; a CrawlArgumentError is kept to be printed as one line."""

    def __init__(self) -> None:
        self.error: BaseException | None = None

    def watch(self, started: Awaitable[None]) -> None:
        """Take over the error of a crawl that failed to start (no traceback for bad input)."""
        if isinstance(started, asyncio.Task):
            started.add_done_callback(self._read_task)
        elif isinstance(started, Deferred):
            started.addErrback(self._read_failure)

    def _read_task(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled():
            self._keep(task.exception())

    def _read_failure(self, failure: Failure) -> Failure | None:
        self._keep(failure.value)
        # Left alone, Twisted would log an unhandled error with its traceback.
        return None if isinstance(failure.value, CrawlArgumentError) else failure

    def _keep(self, error: BaseException | None) -> None:
        self.error = error
        if isinstance(error, CrawlArgumentError):
            print(f"error: {error}", file=sys.stderr)

    def decide(self, crawler: Crawler, *, bootstrap_failed: bool) -> int:
        """The exit code of the finished crawl."""
        if isinstance(self.error, CrawlArgumentError):
            return ExitCode.USAGE
        if self.error is not None:
            # A bug, not bad input: retrieved here, so asyncio will not print it for us.
            traceback.print_exception(self.error, file=sys.stderr)
            return ExitCode.FAILED
        if bootstrap_failed or crawler.stats is None:
            return ExitCode.FAILED
        spider = getattr(crawler, "spider", None)
        settings = getattr(spider, "poll_settings", None)
        polling = settings is not None and settings.every is not None
        return decide_exit_code(crawler.stats.get_stats(), polling=polling)
