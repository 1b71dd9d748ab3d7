"""PeakMemoryExtension: the crawl process's own peak RSS, as a stat when the crawl closes.

Scrapy's `memusage/max` comes from `getrusage().ru_maxrss`, which Linux carries over from the
parent process across fork and exec, so a crawl started by a big process reports the parent's
peak. `VmHWM` in /proc/self/status belongs to the current address space only.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from newscrawl import settings as project_settings
from newscrawl.stats_keys import PEAK_MEMORY_RSS_BYTES

logger = logging.getLogger(__name__)

PEAK_RSS_KEY = PEAK_MEMORY_RSS_BYTES
STATUS_FILE = Path("/proc/self/status")


def read_peak_rss(status_file: Path = STATUS_FILE) -> int | None:
    """This process's peak resident set size in bytes (VmHWM), or None where unknown."""
    try:
        lines = status_file.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("VmHWM:"):
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                return int(fields[1]) * 1024
    return None


class PeakMemoryExtension:
    """Stores the crawl process's peak RSS in the stats and logs it when the crawl closes."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool(
            "NEWSCRAWL_PEAK_MEMORY_ENABLED", project_settings.NEWSCRAWL_PEAK_MEMORY_ENABLED
        ):
            raise NotConfigured("peak memory recording is off (NEWSCRAWL_PEAK_MEMORY_ENABLED)")
        if read_peak_rss() is None:
            raise NotConfigured("no /proc/self/status here (NEWSCRAWL_PEAK_MEMORY_ENABLED)")
        assert crawler.stats is not None
        extension = cls(crawler.stats)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_closed(self, spider: Spider, reason: str) -> None:
        """Record the peak before Scrapy dumps the stats."""
        peak = read_peak_rss()
        if peak is not None:
            self.stats.set_value(PEAK_RSS_KEY, peak)
            logger.info("Peak memory of this crawl process: %.1f MB", peak / 1e6)
