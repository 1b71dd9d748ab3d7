"""bench.crawl_speed at tiny scale: the sized network over real HTTP, one crawl, the report."""

from __future__ import annotations

import gzip
import json
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.crawl_speed import main, summarise_profile
from bench.demo_network import BenchNetworkServer, split_pages
from newscrawl.feeds import parse_feed
from newscrawl.sitemap_discovery import sitemap_urls_from_robots
from newscrawl.sitemaps import parse_sitemap

PAGES = 60


@pytest.fixture(scope="module")
def network() -> Iterator[BenchNetworkServer]:
    with BenchNetworkServer(PAGES) as server:
        yield server


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
    return body


def test_split_pages_sums_to_the_size_in_proportion() -> None:
    assert split_pages(60, [14, 12, 4]) == [28, 24, 8]
    counts = split_pages(1001, [14, 12, 12, 4, 13, 12, 5, 12, 12, 3])
    assert sum(counts) == 1001
    assert min(counts) > 0


def test_feeds_and_sitemaps_each_reach_every_page(network: BenchNetworkServer) -> None:
    description = network.describe()
    assert description["articles"] == PAGES
    from_feeds: set[str] = set()
    for line in description["feed_lines"]:  # type: ignore[attr-defined]
        url = line.split("\t")[0]
        feed = parse_feed(fetch(url), url)
        from_feeds.update(entry.link for entry in feed.entries)
    from_sitemaps: set[str] = set()
    for base in description["base_urls"]:  # type: ignore[attr-defined]
        [index_url] = sitemap_urls_from_robots(fetch(base + "/robots.txt"), base)
        index = parse_sitemap(fetch(index_url), index_url)
        assert index.kind == "sitemapindex"
        for sitemap in index.entries:
            body = fetch(sitemap.loc)
            body = gzip.decompress(body) if sitemap.loc.endswith(".gz") else body
            from_sitemaps.update(entry.loc for entry in parse_sitemap(body, sitemap.loc).entries)
    assert len(from_feeds) == PAGES
    assert from_sitemaps == from_feeds


def test_served_article_pages_are_counted(network: BenchNetworkServer) -> None:
    network.counter.snapshot(reset=True)
    site = network.sites[0]
    base = network.describe()["base_urls"][0]  # type: ignore[index]
    page = fetch(base + site.articles[0].path)
    assert site.articles[0].paragraphs[0].split(" ")[1].encode() in page
    fetch(base + "/robots.txt")
    assert network.counter.snapshot() == {
        "articles": 1,
        "other": 1,
        "repeated": 0,
        "repeated_urls": 0,
    }
    # The request log tells a page served again from another page.
    fetch(base + site.articles[0].path)
    fetch(base + site.articles[0].path)
    fetch(base + site.articles[1].path)
    counts = network.counter.snapshot(reset=True)
    assert (counts["articles"], counts["repeated"], counts["repeated_urls"]) == (4, 2, 1)
    assert network.counter.snapshot()["articles"] == 0


def test_crawl_stores_every_page_served_and_reports(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    argv = [
        "--pages",
        str(PAGES),
        "--scales",
        "",
        "--modes",
        "feeds",
        "--stores",
        "sqlite",
        "--out-dir",
        str(tmp_path / "logs"),
        "--json",
        str(report_path),
    ]
    assert main(argv) == 0
    report = json.loads(report_path.read_text())
    assert {
        "runs",
        "best_runs",
        "ratios",
        "scaling",
        "losses",
        "targets",
        "settings",
    } <= report.keys()
    [run] = report["runs"]
    assert (run["mode"], run["store"]) == ("feeds", "sqlite")
    assert run["served"] == run["fetched"] == run["stored"] == PAGES
    assert run["pending_pages"] == run["failed_pages"] == 0
    assert run["peak_rss_mb"] > 0
    assert run["pages_per_second"] > 0
    # The crawl process's own CPU is part of what the crawl and its children took.
    assert 0 < run["process_cpu_seconds"] <= run["cpu_seconds"]
    assert report["losses"] == []


def test_profile_summary_splits_samples_by_thread_and_component(tmp_path: Path) -> None:
    process = 'process 7:"python -m scrapy crawl rss"'
    crawl = f"{process};execute (scrapy/cmdline.py:214)"
    raw = tmp_path / "profile.txt"
    raw.write_text(
        f"{crawl};run (scrapy/core/scraper.py:10);"
        "process_item (newscrawl/pipelines/static_noise.py:5);"
        "learn (newscrawl/extraction/static.py:9) 3\n"
        f"{crawl};run (scrapy/core/scraper.py:10) 1\n"
        'process 7:"python -m scrapy crawl rss";_bootstrap (threading.py:1002);'
        "write (sqlalchemy/engine.py:1) 2\n"
        # A pool process nests under its parents; its command line spans two lines.
        f'{process};process 8:"python -c import x\n main()";process 9:"python -c pool";'
        "extract (newscrawl/extraction/core.py:3) 4\n"
    )
    summary = summarise_profile(raw)
    assert summary["samples"] == 10
    reactor = summary["by_thread"]["reactor thread"]
    assert reactor["percent_of_all"] == 40.0
    assert dict(reactor["component_percent"])["StaticNoisePipeline"] == 75.0
    assert reactor["own_percent"][0] == ("learn (newscrawl/extraction/static.py:9)", 75.0)
    workers = summary["by_thread"]["worker threads"]
    assert dict(workers["component_percent"]) == {"SQLAlchemy": 100.0}
    children = summary["by_thread"]["child processes"]
    assert dict(children["component_percent"]) == {"extraction core": 100.0}


def test_profile_without_py_spy_is_a_usage_error_before_any_crawl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An interpreter with no py-spy beside it: the error comes from argument parsing.
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    with pytest.raises(SystemExit) as exit_info:
        main(["--pages", "10", "--profile", str(tmp_path / "stacks.txt")])
    assert exit_info.value.code == 2
    assert "--profile needs py-spy" in capsys.readouterr().err
