"""A stats collector that writes a crawl's stats to a JSON file, for benchmarks that run crawls.

Enabled by STATS_CLASS (not by EXTENSIONS, so a bare crawl with `-s EXTENSIONS={}` has it too):

    -s STATS_CLASS=bench.crawl_stats.BenchStatsCollector -s NEWSCRAWL_BENCH_STATS_FILE=out.json

Adds `bench/active_seconds` (first response to the last item leaving the pipelines, which
leaves out start-up and shut-down), its two ends on the machine-wide monotonic clock
(`bench/first_response_monotonic`, `bench/last_item_monotonic`: several workers of one crawl
share that clock), `bench/vmhwm_bytes` (this process's peak RSS) and `bench/process_cpu_seconds`
(this process's own CPU, all its threads, without its children such as an extraction pool).
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.statscollectors import MemoryStatsCollector, StatsT

from newscrawl.extensions.peak_memory import read_peak_rss

STATS_FILE_SETTING = "NEWSCRAWL_BENCH_STATS_FILE"


class BenchStatsCollector(MemoryStatsCollector):
    """Scrapy's in-memory stats, timed and written to NEWSCRAWL_BENCH_STATS_FILE on close."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        path = crawler.settings.get(STATS_FILE_SETTING)
        self.path = Path(path) if path else None
        self.first_response: float | None = None
        self.last_item: float | None = None
        crawler.signals.connect(self.response_received, signal=signals.response_received)
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(self.item_left, signal=signal)

    def response_received(self, **_: Any) -> None:
        """Note when the first response arrived."""
        if self.first_response is None:
            self.first_response = time.monotonic()

    def item_left(self, **_: Any) -> None:
        """Note when the latest item left the pipelines."""
        self.last_item = time.monotonic()

    def _persist_stats(self, stats: StatsT) -> None:
        super()._persist_stats(stats)
        if self.first_response is not None and self.last_item is not None:
            stats["bench/active_seconds"] = max(0.0, self.last_item - self.first_response)
            stats["bench/first_response_monotonic"] = self.first_response
            stats["bench/last_item_monotonic"] = self.last_item
        peak = read_peak_rss()
        if peak is not None:
            stats["bench/vmhwm_bytes"] = peak
        usage = resource.getrusage(resource.RUSAGE_SELF)
        stats["bench/process_cpu_seconds"] = usage.ru_utime + usage.ru_stime
        if self.path is not None:
            self.path.write_text(json.dumps(stats, default=str, indent=1), encoding="utf-8")
