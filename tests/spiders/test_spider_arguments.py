from __future__ import annotations

from typing import Any

import pytest
from scrapy.settings import Settings

from newscrawl.exit_codes import ExitCode, decide_exit_code
from newscrawl.spider_arguments import (
    CrawlArgumentError,
    check_argument_names,
    check_crawl_settings,
    check_database_url,
)
from newscrawl.spiders.rss import RssSpider
from newscrawl.spiders.sitemap import SitemapSpider
from tests.spiders.spider_building import build_spider


def test_unknown_argument_suggests_the_closest_known_one() -> None:
    with pytest.raises(CrawlArgumentError, match=r"did you mean -a category=\.\.\.\?"):
        check_argument_names("rss", ["categroy"], ["feed", "feeds", "category"])
    with pytest.raises(CrawlArgumentError, match="it takes no such argument"):
        check_argument_names("rss", ["zzz"], ["feed", "feeds", "category"])
    check_argument_names("rss", ["feed", "_job"], ["feed"])


@pytest.mark.parametrize(
    ("spider", "arguments", "message"),
    [
        (RssSpider, {"feed": "https://x.example/f", "categroy": "x"}, "did you mean -a category"),
        (SitemapSpider, {"site": "https://x.example/", "alow": "x"}, "did you mean -a allow"),
        (SitemapSpider, {"site": "x.example"}, "-a site=x.example: expected an http"),
        (SitemapSpider, {"site": "https://x.example/", "deny": "[a"}, "-a deny=[a: expected a reg"),
        (SitemapSpider, {"site": "https://x.example/", "max_size": "big"}, "expected a whole num"),
        (RssSpider, {"feed": "https://x.example/f", "every": "0m"}, "-a every=0m: expected a pos"),
    ],
)
def test_spiders_refuse_bad_arguments_in_one_line(
    spider: type[RssSpider] | type[SitemapSpider], arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(CrawlArgumentError) as raised:
        build_spider(spider, None, **arguments)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("url", ["newscrawl.db", "mysql://u@h/db", "sqlite::memory:"])
def test_bad_database_urls_are_refused(url: str) -> None:
    with pytest.raises(CrawlArgumentError, match="NEWSCRAWL_DATABASE_URL"):
        check_database_url(url)


def test_good_database_urls_and_interval_settings_pass() -> None:
    for url in ("sqlite:///newscrawl.db", "postgresql://u@h/db", "postgresql+psycopg://h/db", ""):
        check_database_url(url)
    check_crawl_settings(Settings({"NEWSCRAWL_POLL_MIN_INTERVAL": "30s"}))
    with pytest.raises(CrawlArgumentError, match="-s NEWSCRAWL_POLL_MAX_INTERVAL=6 hours"):
        check_crawl_settings(Settings({"NEWSCRAWL_POLL_MAX_INTERVAL": "6 hours"}))


@pytest.mark.parametrize(
    ("stats", "polling", "code"),
    [
        ({"finish_reason": "finished", "newscrawl/rss/feed_parsed": 1}, False, ExitCode.FINISHED),
        ({"finish_reason": "finished", "newscrawl/rss/feed_parsed": 1,
          "newscrawl/rss/feed_failed": 3}, False, ExitCode.FINISHED),
        ({"finish_reason": "finished", "newscrawl/rss/feed_failed": 1}, False,
         ExitCode.SOURCES_UNREACHABLE),
        ({"finish_reason": "finished", "newscrawl/sitemap/sitemap_guess_missing": 3}, False,
         ExitCode.SOURCES_UNREACHABLE),
        ({"finish_reason": "finished"}, False, ExitCode.FINISHED),
        ({"finish_reason": "database_unavailable"}, False, ExitCode.DATABASE_UNAVAILABLE),
        ({"finish_reason": "shutdown", "newscrawl/rss/feed_parsed": 1}, False,
         ExitCode.INTERRUPTED),
        ({"finish_reason": "shutdown", "newscrawl/rss/feed_parsed": 1}, True, ExitCode.FINISHED),
        ({"finish_reason": "start_error"}, False, ExitCode.FAILED),
    ],
)
def test_exit_code_follows_the_finish_reason_and_sources(
    stats: dict[str, Any], polling: bool, code: ExitCode
) -> None:
    assert decide_exit_code(stats, polling=polling) == code
