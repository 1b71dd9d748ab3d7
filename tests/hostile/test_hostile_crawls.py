"""Both spiders crawl the hostile corpus end to end into SQLite: nothing crashes or is lost.

Every input must leave a clear log line and a stats counter; every fetched article page
ends as an article or as a failed page with its reason (or a logged, counted download
failure), and no duplicate, corrupt or dangerous row is stored. docs/hostile-input.md
lists the same inputs with their outcome and counter.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from newscrawl.exit_codes import ExitCode
from tests.hostile.corpus import CANARY_PATH, build_article_cases, feed_paths
from tests.hostile.crawling import CrawlOutcome, dump_outcome, finish_crawl, start_crawl
from tests.hostile.html_safety import assert_structurally_safe
from tests.hostile.server import HostileServer

ALLOW_LOOPBACK = {"NEWSCRAWL_SSRF_ALLOWLIST": "127.0.0.1"}
# Peak memory of a crawl (Scrapy's MemoryUsage extension): the 10 MB page, the 100k-deep DOM
# and the 64 MB gzip bomb must not blow it up.
MAX_MEMORY_BYTES = 400 * 1024 * 1024
SPIDERS = ["rss", "sitemap"]


@dataclass(frozen=True)
class HostileCrawls:
    """The hostile server and the finished crawls of both spiders over it."""

    server: HostileServer
    rss: CrawlOutcome
    sitemap: CrawlOutcome

    def url(self, path: str) -> str:
        return self.server.base_url + path


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostileCrawls]:
    workdir = tmp_path_factory.mktemp("hostile")
    with HostileServer() as server:
        feeds = workdir / "feeds.txt"
        feeds.write_text("".join(f"{server.base_url}{p}\n" for p in feed_paths()), "utf-8")
        rss_url, sitemap_url = f"sqlite:///{workdir / 'rss.db'}", f"sqlite:///{workdir / 'sm.db'}"
        # The two crawls run side by side: each spends most of its time waiting on stalls.
        rss = start_crawl("rss", {"feeds": str(feeds)}, rss_url, ALLOW_LOOPBACK)
        sitemap = start_crawl(
            "sitemap", {"sitemap": f"{server.base_url}/sitemaps/index.xml"}, sitemap_url,
            ALLOW_LOOPBACK,
        )
        yield HostileCrawls(
            server, finish_crawl(rss, rss_url), finish_crawl(sitemap, sitemap_url)
        )


def outcome_of(crawls: HostileCrawls, spider: str) -> CrawlOutcome:
    return crawls.rss if spider == "rss" else crawls.sitemap


@pytest.mark.parametrize("spider", SPIDERS)
def test_crawl_finishes_cleanly(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    assert outcome.returncode == 0, outcome.log[-4000:]
    assert outcome.stats.get("finish_reason") == "finished"
    assert "Traceback" not in outcome.log, outcome.log[-4000:]
    # Only the retry middleware's "Gave up retrying" is logged as an error.
    errors = [line for line in outcome.log.splitlines() if "] ERROR:" in line]
    assert all("Gave up retrying" in line for line in errors), errors
    # memusage/max would report the pytest process's peak: ru_maxrss survives fork and exec.
    assert 0 < outcome.stat("newscrawl/peak_memory/rss_bytes") < MAX_MEMORY_BYTES


@pytest.mark.parametrize("spider", SPIDERS)
def test_every_fetched_article_page_is_accounted_for(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    assert all(page.status != "pending" for page in outcome.pages.values()), dump_outcome(outcome)
    for url, page in outcome.pages.items():
        if page.status == "extracted":
            assert url in outcome.articles, url
        else:
            assert page.status == "failed" and page.error, (url, page)
            assert f"Dropped: {url}: {page.error}" in outcome.log
    for case in build_article_cases():
        url = crawls.url(case.path)
        if url not in outcome.pages:
            assert f"Article not fetched: {url}" in outcome.log, dump_outcome(outcome)
    fetched = outcome.stat(f"newscrawl/{spider}/page_fetched")
    assert fetched == len(outcome.pages), dump_outcome(outcome)


@pytest.mark.parametrize("spider", SPIDERS)
def test_articles_come_out_of_every_readable_page(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    for case in build_article_cases():
        url = crawls.url(case.path)
        if case.expects_article:
            assert url in outcome.articles, (case, dump_outcome(outcome))
        else:
            assert url not in outcome.articles, case
    expected_text = {
        "/news/wrong-charset": "Городской совет",
        "/news/no-charset": "café",
        "/news/mixed-charset": "Hafenbrücke",
        "/news/unknown-charset": "Straße",
        "/news/unclosed": "dredging the old channel",
        "/news/no-body": "dredging the old channel",
        "/news/xss": "Security paragraph 0.",
        "/news/meta-refresh-self": "dredging the old channel",
    }
    for path, text in expected_text.items():
        assert text in outcome.articles[crawls.url(path)].text, path


@pytest.mark.parametrize("spider", SPIDERS)
def test_no_duplicate_corrupt_or_dangerous_rows(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    for url in [*outcome.pages, *outcome.articles]:
        assert "utm_" not in url and "clid" not in url and "#" not in url, url
    assert [u for u in outcome.articles if "/news/good-one" in u] == [crawls.url("/news/good-one")]
    for url, article in outcome.articles.items():
        assert article.text.strip(), url
        for field in (article.title, article.text, article.html):
            assert "\ufffd" not in field and "\x00" not in field, url
            assert "lollol" not in field and "root:" not in field, url
            assert "CANARY" not in field, url
        assert_structurally_safe(article.html)
    for page in outcome.pages.values():
        assert "lollol" not in (page.title or "") and "root:" not in (page.title or "")


@pytest.mark.parametrize("spider", SPIDERS)
def test_bad_bodies_are_logged_and_counted(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    log, url = outcome.log, crawls.url
    assert f"Bad response body (empty) at {url('/news/empty')}" in log
    assert f"Bad response body (binary) at {url('/news/binary')}" in log
    assert f"Bad response body (binary) at {url('/news/pdf')}" in log
    assert outcome.stat("newscrawl/response_guard/empty_body") == 1
    assert outcome.stat("newscrawl/response_guard/binary_body") == 2
    assert "does not fit its body; decoding as cp1251" in log
    assert outcome.stat("newscrawl/response_guard/charset_repaired") == 1
    assert f"Mixed charsets in {url('/news/mixed-charset')}" in log
    assert outcome.stat("newscrawl/response_guard/charset_mixed") == 1
    assert outcome.pages[url("/news/deep")].error == "no article text found"
    assert outcome.stat("newscrawl/sql_storage/empty_articles") == 4
    assert "larger than download max size" in log
    assert f"Article not fetched: {url('/news/huge')}" in log


@pytest.mark.parametrize("spider", SPIDERS)
def test_server_faults_are_logged_and_counted(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    log, url = outcome.log, crawls.url
    loop = " -> ".join(url(f"/news/redirect-loop-{x}") for x in "aba")
    assert f"Redirect loop: {loop}" in log
    assert f"Article not fetched: {url('/news/redirect-loop-b')} (redirect loop: {loop})" in log
    # The rss crawl also meets a feed that redirects to itself.
    assert outcome.stat("newscrawl/redirect_loops/loop") == (2 if spider == "rss" else 1)
    for path, target, reason in (
        ("/news/xss", "javascript:alert(1)", "it points to a javascript URL"),
        ("/news/meta-refresh-self", url("/news/meta-refresh-self#top"), "it points back to"),
    ):
        assert f"Ignoring the meta refresh of {url(path)} to {target}: {reason}" in log
    assert outcome.stat("newscrawl/meta_refresh_guard/ignored") == 2
    for path, status in (
        ("/news/gone", "HTTP 404 Not Found"),
        ("/news/broken", "HTTP 500 Internal Server Error"),
        ("/news/unavailable", "HTTP 503 Service Unavailable"),
    ):
        assert f"Article not fetched: {url(path)} ({status})" in log
    assert "Ignoring non-200 response" not in log
    assert f"Article not fetched: {url('/news/stall')} (Getting" in log
    assert outcome.stat("retry/reason_count/scrapy.exceptions.DownloadTimeoutError") >= 1
    assert outcome.stat("retry/max_reached") >= 3
    # huge, redirect loop, 404, 500, 503, stall, and seven refused by the SSRF guard.
    assert outcome.stat(f"newscrawl/{spider}/article_failed") == 13


@pytest.mark.parametrize("spider", SPIDERS)
def test_ssrf_guard_refuses_private_addresses_and_redirects(
    crawls: HostileCrawls, spider: str
) -> None:
    outcome = outcome_of(crawls, spider)
    for refused in (
        "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/news/private-network",
        "http://127.0.0.2/news/other-loopback", "http://[::1]/news/ipv6-loopback",
    ):
        assert f"SSRF guard refused {refused}: " in outcome.log
    for disguised in ("http://167772161/news/decimal-ip", "http://0x0a000001/news/hex-ip"):
        host = disguised.split("/")[2]
        reason = f"{host} resolves to non-public address 10.0.0.1"
        assert f"SSRF guard refused {disguised}: {reason}" in outcome.log
    assert outcome.stat("newscrawl/ssrf_guard/refused") == 6
    unresolvable = "http://a..b/news/unresolvable"
    # A name that does not resolve is a DNS failure, named once, not an SSRF refusal.
    assert f"SSRF guard refused {unresolvable}" not in outcome.log
    assert outcome.log.count(f"{unresolvable} (DNS lookup failed") == 1, outcome.log[-6000:]
    # Refused on the first attempt and on its one retry (RETRY_TIMES=1).
    assert outcome.stat("newscrawl/ssrf_guard/unresolved") == 2


@pytest.mark.parametrize("spider", SPIDERS)
def test_tracking_duplicates_collapse(crawls: HostileCrawls, spider: str) -> None:
    outcome = outcome_of(crawls, spider)
    clean = crawls.url("/news/good-one")
    for tracked in ("?utm_source=newsletter&utm_medium=email", "?fbclid=IwAR0abc&gclid=xyz"):
        assert f"Stripped tracking parameters: {clean}{tracked} -> {clean}" in outcome.log
    assert outcome.stat("newscrawl/tracking_params/stripped") == 2
    assert outcome.stat("dupefilter/filtered") >= 3


def test_hostile_feeds_are_logged_and_counted(crawls: HostileCrawls) -> None:
    outcome, url = crawls.rss, crawls.url
    assert f"No feed found at {url('/feeds/error-page.xml')}" in outcome.log
    assert outcome.stat("newscrawl/rss/not_a_feed") == 1
    assert "Skipping feed entry without a link" in outcome.log
    assert outcome.stat("newscrawl/rss/entry_without_link") == 1
    assert url("/news/relative-link") in outcome.articles
    for path in ("/feeds/gone.xml", "/feeds/broken.xml", "/feeds/stall.xml"):
        assert f"Feed not fetched: {url(path)}" in outcome.log
    assert f"Feed not fetched: {url('/feeds/gone.xml')} (HTTP 404 Not Found)" in outcome.log
    self_loop = url("/feeds/redirect-loop.xml")
    assert f"Feed not fetched: {self_loop} (redirect loop: {self_loop} -> {self_loop})" in (
        outcome.log
    )
    assert outcome.stat("newscrawl/rss/feed_failed") == 4
    # main, malformed (parsed leniently), billion laughs and XXE (entities left unexpanded).
    assert outcome.stat("newscrawl/rss/feed_parsed") == 4
    for path in ("/feeds/billion-laughs.xml", "/feeds/xxe.xml"):
        assert f"Feed {url(path)} declares XML entities; they are not expanded" in outcome.log
    assert outcome.stat("newscrawl/rss/xml_entities_ignored") == 2


def test_hostile_sitemaps_are_logged_and_counted(crawls: HostileCrawls) -> None:
    outcome, url = crawls.sitemap, crawls.url
    assert f"Ignoring invalid sitemap {url('/sitemaps/bomb.xml.gz')}: gzip body exceeds" in (
        outcome.log
    )
    assert f"Ignoring invalid sitemap: {url('/sitemaps/error-page.xml')}" in outcome.log
    assert outcome.stat("newscrawl/sitemap/invalid_sitemap") == 2
    for path in ("/sitemaps/gone.xml", "/sitemaps/stall.xml"):
        assert f"Sitemap not fetched: {url(path)}" in outcome.log
    assert f"Sitemap not fetched: {url('/sitemaps/gone.xml')} (HTTP 404 Not Found)" in (
        outcome.log
    )
    assert outcome.stat("newscrawl/sitemap/sitemap_failed") == 2
    # urls, malformed (recovered), billion laughs and XXE (entities left unexpanded).
    assert outcome.stat("newscrawl/sitemap/sitemap") == 4
    assert outcome.stat("newscrawl/sitemap/xml_entities_ignored") == 2


def test_external_entities_are_never_fetched(crawls: HostileCrawls) -> None:
    assert CANARY_PATH not in crawls.server.requested


def test_ssrf_guard_resolves_host_names(tmp_path: Path) -> None:
    """Without the allowlist, a feed at localhost is refused before any byte is sent."""
    with HostileServer() as server:
        feed = server.base_url.replace("127.0.0.1", "localhost") + "/feeds/main.xml"
        database_url = f"sqlite:///{tmp_path / 'ssrf.db'}"
        outcome = finish_crawl(start_crawl("rss", {"feed": feed}, database_url, {}), database_url)
        requested = list(server.requested)
    # Its only feed refused: every feed unreachable.
    assert outcome.returncode == ExitCode.SOURCES_UNREACHABLE, outcome.log[-3000:]
    assert f"SSRF guard refused {feed}: localhost resolves to non-public address 127.0.0.1" in (
        outcome.log
    )
    assert outcome.stat("newscrawl/ssrf_guard/refused") == 1
    assert outcome.stat("newscrawl/rss/feed_failed") == 1
    assert requested == []

