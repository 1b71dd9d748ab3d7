"""Full crawls of the demo network over loopback, by both spiders, into SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from newscrawl.categories import site_from_url
from newscrawl.demo import DemoNetworkServer
from newscrawl.demo.layouts import render_article_page
from newscrawl.evaluation.metric import score_bag_of_words
from newscrawl.extraction import extract
from tests.e2e.crawl_support import (
    StoredArticle,
    fresh_postgres_database,
    list_article_urls,
    read_articles,
    read_page_statuses,
    run_crawl,
    write_feeds_file,
)

# Bag-of-words F1 against the generated gold: the mean over all articles, and the floor
# no single article may fall under.
MEAN_F1_FLOOR = 0.95
PAGE_F1_FLOOR = 0.85


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


@pytest.fixture
def feeds_file(network: DemoNetworkServer, tmp_path: Path) -> Path:
    return write_feeds_file(network.feed_lines(), tmp_path)


def check_articles(network: DemoNetworkServer, stored: list[StoredArticle]) -> None:
    """Every demo article stored once, with its metadata, extracted close to the gold."""
    urls = [a.url for a in stored]
    assert len(urls) == len(set(urls)), "duplicate article URLs"
    assert set(urls) == list_article_urls(network)
    f1_scores = []
    for article in stored:
        gold = network.article_for_url(article.url)
        assert gold is not None
        assert article.title == gold.title
        assert article.site == site_from_url(article.url)
        assert article.category == gold.category
        # Pages that print only a day may win over the feed's exact time.
        assert article.published_at is not None
        assert article.published_at.date() == gold.published.date()
        assert article.authors and set(article.authors) <= set(gold.authors)
        f1_scores.append(score_bag_of_words(article.text, gold.gold_text).f1)
    mean_f1 = sum(f1_scores) / len(f1_scores)
    assert mean_f1 >= MEAN_F1_FLOOR
    assert min(f1_scores) >= PAGE_F1_FLOOR
    # The crawl's neighbour-based extraction never does worse than one page alone.
    assert mean_f1 >= single_page_f1(network, stored)
    # Full groups were learned from neighbours; groups under 10 pages could not be.
    methods = Counter(article.extraction_method for article in stored)
    assert methods["neighbours"] >= 60


def single_page_f1(network: DemoNetworkServer, stored: list[StoredArticle]) -> float:
    """Mean F1 of the single-page extractor on the very pages the crawl stored."""
    scores = []
    for article in stored:
        site = network.site_for_url(article.url)
        gold = network.article_for_url(article.url)
        assert site is not None and gold is not None
        page = render_article_page(site, gold, network.base_urls[site.key])
        text = extract(page, url=article.url).text
        scores.append(score_bag_of_words(text, gold.gold_text).f1)
    return sum(scores) / len(scores)


def check_pages_accounted(database_url: str, stored: list[StoredArticle]) -> None:
    """No fetched page is left pending at the end of the crawl."""
    statuses = read_page_statuses(database_url)
    assert "pending" not in set(statuses.values())
    assert {a.url for a in stored} <= set(statuses)


def test_rss_then_sitemap_crawl_into_sqlite(
    network: DemoNetworkServer, feeds_file: Path, tmp_path: Path
) -> None:
    database_url = f"sqlite:///{tmp_path / 'e2e.db'}"
    rss = run_crawl("rss", {"feeds": str(feeds_file)}, database_url)
    assert rss.returncode == 0, rss.log[-3000:]
    assert rss.stat("newscrawl/rss/entry_without_link") == 1
    assert rss.stat("newscrawl/rss/feed_discovered") == 2
    assert rss.stat("newscrawl/rss/page_fetched") == 99
    stored = read_articles(database_url)
    check_articles(network, stored)
    check_pages_accounted(database_url, stored)

    # The same articles again through the sitemaps: rows are updated, never duplicated.
    sites = ",".join(network.base_urls.values())
    sitemap = run_crawl("sitemap", {"site": sites}, database_url)
    assert sitemap.returncode == 0, sitemap.log[-3000:]
    assert sitemap.stat("newscrawl/sitemap/page_fetched") == 99
    again = read_articles(database_url)
    assert len(again) == len(stored)
    check_articles(network, again)


def test_rss_crawl_with_an_extraction_pool_into_sqlite(
    network: DemoNetworkServer, feeds_file: Path, tmp_path: Path
) -> None:
    database_url = f"sqlite:///{tmp_path / 'pool.db'}"
    rss = run_crawl(
        "rss", {"feeds": str(feeds_file)}, database_url, {"NEWSCRAWL_EXTRACTION_WORKERS": "2"}
    )
    assert rss.returncode == 0, rss.log[-3000:]
    assert "Extracting articles in 2 worker process(es)" in rss.log
    assert rss.stat("newscrawl/rss/page_fetched") == 99
    assert rss.stat("newscrawl/article_extraction/extracted") == 99
    assert rss.stat("newscrawl/article_extraction/worker_crashed") == 0
    stored = read_articles(database_url)
    check_articles(network, stored)
    check_pages_accounted(database_url, stored)


def test_sitemap_then_rss_crawl_into_postgresql(
    network: DemoNetworkServer, feeds_file: Path
) -> None:
    with fresh_postgres_database() as database_url:
        sites = ",".join(network.base_urls.values())
        sitemap = run_crawl("sitemap", {"site": sites}, database_url)
        assert sitemap.returncode == 0, sitemap.log[-3000:]
        assert sitemap.stat("newscrawl/sitemap/sitemap_index") == 3
        stored = read_articles(database_url)
        check_articles(network, stored)
        check_pages_accounted(database_url, stored)

        rss = run_crawl("rss", {"feeds": str(feeds_file)}, database_url)
        assert rss.returncode == 0, rss.log[-3000:]
        again = read_articles(database_url)
        assert len(again) == len(stored)
        check_articles(network, again)


def test_sitemap_since_and_deny_limit_the_crawl(network: DemoNetworkServer, tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'since.db'}"
    ledger = network.base_urls["ledger"]
    site = next(s for s in network.sites if s.key == "ledger")
    # The gzip sitemap's lastmod is a bare date, so `since` is compared day by day.
    since = site.articles[20].published.date()
    crawl = run_crawl(
        "sitemap",
        {"sitemap": f"{ledger}/sitemap_index.xml", "since": since.isoformat(), "deny": "/sport/"},
        database_url,
    )
    assert crawl.returncode == 0, crawl.log[-3000:]
    expected = {
        ledger + a.path
        for a in site.articles
        if a.published.date() >= since and a.category != "sport"
    }
    assert 5 < len(expected) < len(site.articles)
    assert {a.url for a in read_articles(database_url)} == expected
