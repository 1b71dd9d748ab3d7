"""An article not fetched is forgotten by the seen-URL cache, so a later poll refetches it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from sqlalchemy import create_engine
from twisted.internet.error import ConnectionRefusedError
from twisted.python.failure import Failure

from newscrawl.spiders.feed_polling import FeedPoller
from newscrawl.spiders.rss import RssSpider
from tests.spiders.spider_building import build_spider

FEED = "http://127.0.0.1:8000/world/rss.xml"
ARTICLE = "http://127.0.0.1:8000/world/story-1.html"


@pytest.fixture
def spider(tmp_path: Path) -> Iterator[RssSpider]:
    database_url = f"sqlite:///{tmp_path / 'news.db'}"
    settings = {"NEWSCRAWL_DATABASE_URL": database_url}
    spider = build_spider(RssSpider, settings, feed=FEED, every="1m")
    assert spider.poll_settings is not None
    engine = create_engine(database_url)
    spider.poller = FeedPoller(engine, spider.poll_settings)
    yield spider
    engine.dispose()


def fail_request(request: Request, error: BaseException) -> Failure:
    failure = Failure(error)
    failure.request = request  # type: ignore[attr-defined]
    return failure


def test_a_network_failure_forgets_the_article(spider: RssSpider) -> None:
    assert spider.poller is not None
    spider.poller.seen.add([ARTICLE])
    spider.handle_article_error(fail_request(Request(ARTICLE), ConnectionRefusedError()))
    assert ARTICLE not in spider.poller.seen


def test_a_server_error_forgets_the_article(spider: RssSpider) -> None:
    assert spider.poller is not None
    spider.poller.seen.add([ARTICLE])
    response = Response(ARTICLE, status=503, request=Request(ARTICLE))
    spider.handle_article_error(fail_request(Request(ARTICLE), HttpError(response, "503")))
    assert ARTICLE not in spider.poller.seen


def test_a_missing_page_stays_known(spider: RssSpider) -> None:
    assert spider.poller is not None
    spider.poller.seen.add([ARTICLE])
    response = Response(ARTICLE, status=404, request=Request(ARTICLE))
    spider.handle_article_error(fail_request(Request(ARTICLE), HttpError(response, "404")))
    # A 4xx page is not refetched at every poll; a restarted crawl tries it once more.
    assert ARTICLE in spider.poller.seen
