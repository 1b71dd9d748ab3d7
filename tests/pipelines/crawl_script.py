"""A throw-away crawl of loopback pages through the project's pipelines (run as a subprocess).

Usage: python crawl_script.py BASE_URL DATABASE_URL SETTINGS_JSON PATH...
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import Response
from scrapy.settings import Settings

from newscrawl import settings as project_settings
from newscrawl.categories import category_from_url, site_from_url
from newscrawl.items import PageItem


class LoopbackSpider(scrapy.Spider):
    name = "loopback"

    def __init__(self, urls: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = urls

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.urls:
            yield scrapy.Request(url, callback=self.parse_page)

    def parse_page(self, response: Response) -> PageItem:
        number = response.url.rsplit("-", 1)[1].split(".")[0]
        return PageItem(
            url=response.url,
            site=site_from_url(response.url),
            category=category_from_url(response.url),
            body=response.body,
            encoding=getattr(response, "encoding", None),
            title=f"Headline number {number}",
            status=response.status,
        )


def main(base_url: str, database_url: str, extra_settings: str, *paths: str) -> None:
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.update(
        {
            "SPIDER_MODULES": [],
            "ROBOTSTXT_OBEY": False,
            "NEWSCRAWL_DATABASE_URL": database_url,
            "NEWSCRAWL_PROGRESS_INTERVAL": 1.0,
            "LOG_LEVEL": "INFO",
            "TELNETCONSOLE_ENABLED": False,
            **json.loads(extra_settings),
        }
    )
    process = CrawlerProcess(settings)
    process.crawl(LoopbackSpider, urls=[base_url + path for path in paths])
    process.start()


if __name__ == "__main__":
    main(*sys.argv[1:])
