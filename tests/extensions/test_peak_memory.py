"""PeakMemoryExtension reports the crawl process's own peak RSS."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from newscrawl.extensions.peak_memory import PEAK_RSS_KEY, PeakMemoryExtension, read_peak_rss


def test_read_peak_rss_parses_vmhwm(tmp_path: Path) -> None:
    status = tmp_path / "status"
    status.write_text("Name:\tpython\nVmPeak:\t  900 kB\nVmHWM:\t  1234 kB\nVmRSS:\t 1000 kB\n")
    assert read_peak_rss(status) == 1234 * 1024


def test_read_peak_rss_is_none_without_the_field(tmp_path: Path) -> None:
    status = tmp_path / "status"
    status.write_text("Name:\tpython\n")
    assert read_peak_rss(status) is None
    assert read_peak_rss(tmp_path / "missing") is None


@pytest.mark.skipif(read_peak_rss() is None, reason="needs /proc/self/status")
def test_closing_the_spider_records_this_process_peak() -> None:
    crawler = get_crawler(Spider, settings_dict={})
    extension = build_from_crawler(PeakMemoryExtension, crawler)
    assert crawler.stats is not None
    extension.spider_closed(Spider(name="probe"), "finished")
    recorded = crawler.stats.get_value(PEAK_RSS_KEY)
    assert isinstance(recorded, int)
    assert 0 < recorded <= (read_peak_rss() or 0)


def test_switching_it_off_names_the_setting() -> None:
    crawler = get_crawler(Spider, settings_dict={"NEWSCRAWL_PEAK_MEMORY_ENABLED": False})
    with pytest.raises(NotConfigured, match="NEWSCRAWL_PEAK_MEMORY_ENABLED"):
        build_from_crawler(PeakMemoryExtension, crawler)
