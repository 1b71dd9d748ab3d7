"""RobotsTxtLogExtension: a robots.txt that cannot be fetched is one WARNING line, named.

Scrapy's RobotsTxtMiddleware logs such a failure as an ERROR with the whole traceback of
the download (35 lines for a refused connection). The crawl goes on without the file, so a
line that says what happened is enough.
"""

from __future__ import annotations

import logging
from typing import Self
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.crawler import Crawler

from newscrawl.fetch_failures import describe_fetch_error

ROBOTS_LOGGER = "scrapy.downloadermiddlewares.robotstxt"


class RobotsTxtFailureFilter(logging.Filter):
    """Rewrites the robots.txt middleware's download errors to one WARNING line."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not (record.exc_info and isinstance(args, dict) and "f_exception" in args):
            return True
        url = getattr(args.get("request"), "url", "")
        error = args["f_exception"]
        record.msg = "robots.txt of %s not fetched (%s): crawling the site as if it allowed all"
        record.args = (urlsplit(url).netloc, describe_fetch_error(error, url))
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class RobotsTxtLogExtension:
    """Installs the filter for the crawl, and removes it when the spider closes."""

    def __init__(self) -> None:
        self.filter = RobotsTxtFailureFilter()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        extension = cls()
        logging.getLogger(ROBOTS_LOGGER).addFilter(extension.filter)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_closed(self) -> None:
        logging.getLogger(ROBOTS_LOGGER).removeFilter(self.filter)
