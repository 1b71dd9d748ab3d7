"""Read a maximal sitemap (50 MB, 50,000 URLs, gzipped) through the spider; print peak RSS.

Run as a script in its own process, so that the peak is this reading's alone.
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import sys

from scrapy.http import Response

from newscrawl.extensions.peak_memory import read_peak_rss
from newscrawl.sitemaps import DEFAULT_MAX_SIZE, MAX_URLS_PER_SITEMAP
from newscrawl.spiders.sitemap import SitemapSpider
from tests.spiders.spider_building import build_response, build_spider

SITE = "https://maximal.example"


def build_maximal_sitemap(extra_urls: int = 0) -> bytes:
    """A gzipped urlset just under 50 MB inflated, with 50,000 (+ extra) long URLs.

    Written entry by entry into the gzip stream: the 50 MB are never held at once.
    """
    count = MAX_URLS_PER_SITEMAP + extra_urls
    per_entry = DEFAULT_MAX_SIZE // count - 200
    packed = io.BytesIO()
    with gzip.GzipFile(fileobj=packed, mode="wb", compresslevel=1, mtime=0) as stream:
        stream.write(
            b'<?xml version="1.0" encoding="UTF-8"?>'
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        )
        for number in range(count):
            path = f"/news/{number:06d}-" + "a" * (per_entry - 120)
            stream.write(
                f"<url><loc>{SITE}{path}.html</loc><lastmod>2026-11-26T10:00:00Z</lastmod>"
                "<changefreq>daily</changefreq></url>\n".encode()
            )
        stream.write(b"</urlset>")
    return packed.getvalue()


def read_through_spider(body: bytes) -> dict[str, int]:
    """Parse the sitemap as the spider does: its article requests and the URLs over the limit."""
    spider = build_spider(SitemapSpider, sitemap=f"{SITE}/sitemap.xml.gz")
    response: Response = build_response(f"{SITE}/sitemap.xml.gz", body, kind=Response)
    requests = asyncio.run(spider.read_sitemap_requests(response))
    assert spider.crawler.stats is not None
    over = spider.crawler.stats.get_value("newscrawl/sitemap/url_over_sitemap_limit", 0)
    return {"requests": len(requests), "over_limit": int(over)}


if __name__ == "__main__":
    figures = read_through_spider(build_maximal_sitemap(int(sys.argv[1])))
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent (pytest) across exec.
    figures["peak_rss_bytes"] = read_peak_rss() or 0
    print(json.dumps(figures))
