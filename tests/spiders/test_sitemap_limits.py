"""Sitemap limits: 50,000 URLs a document, NEWSCRAWL_SITEMAP_MAX_URLS a crawl, bounded memory."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from scrapy import Request
from scrapy.http import Response

from newscrawl.sitemaps import MAX_URLS_PER_SITEMAP
from newscrawl.spiders.sitemap import SitemapSpider
from tests.spiders.loopback_sites import REPO_ROOT, urlset
from tests.spiders.spider_building import build_response, build_spider, stats_of

# The bound for reading a maximal sitemap (50 MB, 50,000 URLs), interpreter included.
MAX_PEAK_RSS_BYTES = 300 * 1024 * 1024


def sitemap_requests(spider: SitemapSpider, response: Response) -> list[Request]:
    async def collect() -> list[Request]:
        return [r async for r in spider.parse_sitemap(response)]

    return asyncio.run(collect())


def test_a_maximal_sitemap_stops_at_50000_urls_within_300_mb() -> None:
    # Its own process: the peak resident size is this reading's, not the test runner's.
    done = subprocess.run(
        [sys.executable, "-m", "tests.spiders.maximal_sitemap", "25"],
        cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True, text=True, timeout=600, check=True,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["requests"] == MAX_URLS_PER_SITEMAP
    assert figures["over_limit"] == 25
    assert 0 < figures["peak_rss_bytes"] < MAX_PEAK_RSS_BYTES, figures


def test_the_crawl_total_stops_at_the_setting_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    spider = build_spider(
        SitemapSpider, {"NEWSCRAWL_SITEMAP_MAX_URLS": 3}, sitemap="https://s.example/a.xml"
    )
    first = urlset("https://s.example/1", "https://s.example/2")
    second = urlset("https://s.example/3", "https://s.example/4", "https://s.example/5")
    taken = sitemap_requests(spider, build_response("https://s.example/a.xml", first))
    taken += sitemap_requests(spider, build_response("https://s.example/b.xml", second))
    assert [r.url for r in taken] == ["https://s.example/1", "https://s.example/2",
                                      "https://s.example/3"]
    assert stats_of(spider)["newscrawl/sitemap/url_over_crawl_limit"] == 2
    assert caplog.text.count("NEWSCRAWL_SITEMAP_MAX_URLS (3) reached") == 1


def test_the_crawl_total_defaults_to_the_project_setting() -> None:
    from newscrawl import settings

    spider = build_spider(SitemapSpider, sitemap="https://s.example/a.xml")
    assert spider.max_urls == settings.NEWSCRAWL_SITEMAP_MAX_URLS > MAX_URLS_PER_SITEMAP
