"""Run the rss then the sitemap spider over the running demo network, in this process."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scrapy.settings import Settings


def build_demo_settings(database_url: str, overrides: Mapping[str, Any] | None = None) -> Settings:
    """Return the project settings with the demo's database and a quiet log."""
    settings = Settings()
    settings.setmodule("newscrawl.settings", priority="project")
    settings.set("NEWSCRAWL_DATABASE_URL", database_url, priority="cmdline")
    settings.set("LOG_LEVEL", "WARNING", priority="cmdline")
    settings.set("TELNETCONSOLE_ENABLED", False, priority="cmdline")
    # The demo sites are served on loopback, which the SSRF guard refuses by default.
    settings.set("NEWSCRAWL_SSRF_ALLOWLIST", ["127.0.0.1"], priority="cmdline")
    for name, value in (overrides or {}).items():
        settings.set(name, value, priority="cmdline")
    return settings


def run_demo_crawls(settings: Settings, feeds_file: Path, site_urls: Sequence[str]) -> None:
    """Crawl the feeds with the rss spider, then the sites' sitemaps with the sitemap spider.

    One after the other, so the second crawl finds the groups the first one learned and
    re-crawled URLs update their rows. Installs and runs the reactor: once per process.
    """
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from scrapy.utils.log import configure_logging
    from scrapy.utils.reactor import install_reactor

    from newscrawl.spiders.rss import RssSpider
    from newscrawl.spiders.sitemap import SitemapSpider

    install_reactor(settings["TWISTED_REACTOR"])
    from twisted.internet import reactor as installed_reactor

    # Twisted's zope interfaces do not type-check as methods; the reactor is used untyped.
    reactor: Any = installed_reactor

    configure_logging(settings)
    runner = AsyncCrawlerRunner(settings)
    failures: list[BaseException] = []

    async def crawl_in_turn() -> None:
        try:
            await runner.crawl(RssSpider, feeds=str(feeds_file))
            await runner.crawl(SitemapSpider, site=",".join(site_urls))
        except Exception as exc:  # reported after the reactor stops
            failures.append(exc)
        finally:
            reactor.stop()

    reactor.callWhenRunning(lambda: deferred_from_coro(crawl_in_turn()))
    reactor.run()
    if failures:
        raise failures[0]
