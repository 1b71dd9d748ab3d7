"""The publishing demo network: each feed fetch publishes new articles, served on loopback."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import urljoin

import pytest

from newscrawl.demo.publishing import PublishingNetworkServer, PublishingPlan
from newscrawl.feeds import parse_feed

PLAN = PublishingPlan(batch=3, window=5, limit_per_feed=7)


@pytest.fixture
def network() -> Iterator[PublishingNetworkServer]:
    with PublishingNetworkServer(PLAN) as server:
        yield server


def fetch_status(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


def fetch(url: str) -> bytes:
    status, body = fetch_status(url)
    assert status == 200, url
    return body


def fetch_links(feed_url: str) -> list[str]:
    parsed = parse_feed(fetch(feed_url), feed_url, "application/rss+xml")
    return [urljoin(feed_url, entry.link) for entry in parsed.entries]


def test_every_fetch_publishes_a_batch_and_lists_the_newest(
    network: PublishingNetworkServer,
) -> None:
    feed_url = network.feed_lines()[0].split("\t")[0]
    first = fetch_links(feed_url)
    second = fetch_links(feed_url)
    assert len(first) == 3
    # The window keeps the newest five: three new, two already listed.
    assert len(second) == 5
    assert len(set(second) - set(first)) == 3
    third = fetch_links(feed_url)
    # The feed stops at its limit: one more article, then no new ones.
    assert len(set(third) - set(second)) == 1
    assert set(fetch_links(feed_url)) == set(third)
    assert network.published_total() == 7


def test_published_articles_are_served_and_unpublished_ones_are_not(
    network: PublishingNetworkServer,
) -> None:
    feed_url = network.feed_lines()[0].split("\t")[0]
    links = fetch_links(feed_url)
    for link in links:
        assert b"<html" in fetch(link).lower()
    unpublished = links[0].rsplit("-", 1)[0] + "-6.html"
    assert fetch_status(unpublished)[0] == 404


def test_feed_lines_cover_every_category_of_every_site(network: PublishingNetworkServer) -> None:
    lines = network.feed_lines()
    assert len(lines) == sum(len(site.categories) for site in network.sites)
    assert all(line.split("\t")[0].endswith("/rss.xml") for line in lines)
