"""Exit codes and one-line errors of real `scrapy crawl` runs (README, "Exit codes")."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from newscrawl.demo import DemoNetworkServer
from newscrawl.exit_codes import ExitCode
from tests.e2e.crawl_support import REPO_ROOT, CrawlResult, count_pages, run_crawl, write_feeds_file

UNRESOLVABLE = "http://nonexistent.invalid/feed.xml"


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


def find_closed_port() -> int:
    """A loopback port nothing listens on once this returns."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def assert_clean(result: CrawlResult) -> None:
    assert "Traceback" not in result.log, result.log[-6000:]
    assert "Task exception was never retrieved" not in result.log, result.log[-6000:]


@pytest.mark.parametrize(
    ("spider", "arguments", "settings", "message"),
    [
        ("rss", {}, {}, "the rss spider needs a feed: -a feed=URL or -a feeds=FILE"),
        ("rs", {"feed": "http://127.0.0.1:9/f.xml"}, {},
         "no spider named 'rs': expected one of rss, sitemap"),
        ("rss", {"feed": "example.com/rss"}, {}, "-a feed=example.com/rss: expected an http(s)"),
        ("rss", {"feed": "http://127.0.0.1:9/f.xml", "every": "banana"}, {},
         "-a every=banana: expected a positive interval"),
        ("sitemap", {"site": "http://127.0.0.1:9/", "since": "yesterday"}, {},
         "-a since=yesterday: expected a date, for example -a since=2026-11-01"),
        ("sitemap", {"site": "http://127.0.0.1:9/", "allow": "("}, {},
         "-a allow=(: expected a regular expression"),
        ("rss", {"feeds": "/no/such/feeds.txt"}, {}, "-a feeds=/no/such/feeds.txt: no such file"),
        ("rss", {"feed": "http://127.0.0.1:9/f.xml", "categroy": "x"}, {},
         "unknown argument -a categroy=... for the rss spider: did you mean -a category=...?"),
        ("rss", {"feed": "http://127.0.0.1:9/f.xml"}, {"NEWSCRAWL_POLL_INTERVAL": "often"},
         "-s NEWSCRAWL_POLL_INTERVAL=often: expected a positive interval"),
        ("rss", {"feed": "http://127.0.0.1:9/f.xml"}, {"NEWSCRAWL_EXTRACTION_WORKERS": "-1"},
         "-s NEWSCRAWL_EXTRACTION_WORKERS=-1: expected 0 or more worker processes"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    tmp_path: Path, spider: str, arguments: dict[str, str], settings: dict[str, str], message: str
) -> None:
    result = run_crawl(spider, arguments, f"sqlite:///{tmp_path / 'crawl.db'}", settings)

    assert result.returncode == ExitCode.USAGE, result.log[-6000:]
    assert_clean(result)
    errors = [line for line in result.log.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.log[-6000:]
    assert message in errors[0]
    assert "for example" in errors[0] or "did you mean" in errors[0]
    assert not (tmp_path / "crawl.db").exists()


def test_bad_database_url_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run_crawl("rss", {"feed": "http://127.0.0.1:9/f.xml"}, "newscrawl.db")

    assert result.returncode == ExitCode.USAGE, result.log[-6000:]
    assert_clean(result)
    assert (
        "error: -s NEWSCRAWL_DATABASE_URL=newscrawl.db: expected a database URL such as"
        " sqlite:///newscrawl.db" in result.log
    )


def test_feed_answering_404_exits_4_and_names_the_status(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    feed = next(iter(network.base_urls.values())) + "/no-such-feed.xml"
    result = run_crawl("rss", {"feed": feed}, f"sqlite:///{tmp_path / 'crawl.db'}")

    assert result.returncode == ExitCode.SOURCES_UNREACHABLE, result.log[-6000:]
    assert_clean(result)
    assert f"Feed not fetched: {feed} (HTTP 404 Not Found)" in result.log
    assert "Ignoring non-200 response" not in result.log


def test_refused_connection_exits_4_and_says_so(tmp_path: Path) -> None:
    port = find_closed_port()
    feed = f"http://127.0.0.1:{port}/feed.xml"
    result = run_crawl("rss", {"feed": feed}, f"sqlite:///{tmp_path / 'crawl.db'}")

    assert result.returncode == ExitCode.SOURCES_UNREACHABLE, result.log[-6000:]
    # Scrapy's robots.txt middleware would log the download's traceback.
    assert_clean(result)
    assert f"Feed not fetched: {feed} (connection refused by 127.0.0.1:{port})" in result.log
    assert f"robots.txt of 127.0.0.1:{port} not fetched (connection refused" in result.log


def test_unresolvable_host_exits_4_and_is_a_dns_failure_once(tmp_path: Path) -> None:
    result = run_crawl("rss", {"feed": UNRESOLVABLE}, f"sqlite:///{tmp_path / 'crawl.db'}")

    assert result.returncode == ExitCode.SOURCES_UNREACHABLE, result.log[-6000:]
    assert_clean(result)
    assert "SSRF guard refused" not in result.log
    named = f"Feed not fetched: {UNRESOLVABLE} (DNS lookup failed: no address for"
    assert result.log.count(named) == 1, result.log[-6000:]


def test_sitemap_site_unreachable_exits_4(tmp_path: Path) -> None:
    site = f"http://127.0.0.1:{find_closed_port()}/"
    result = run_crawl("sitemap", {"site": site}, f"sqlite:///{tmp_path / 'crawl.db'}")

    assert result.returncode == ExitCode.SOURCES_UNREACHABLE, result.log[-6000:]
    assert_clean(result)
    # robots.txt, then every well-known path and the homepage: none answers.
    assert re.search(r"0 feeds or sitemaps read, \d+ failed \(none could be read\)", result.log)


def test_one_good_and_one_bad_feed_exit_0_with_the_failure_counted(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    base = next(iter(network.base_urls.values()))
    good = next(line for line in network.feed_lines() if line.startswith(base))
    feeds = write_feeds_file([good, f"{base}/no-such-feed.xml"], tmp_path)
    result = run_crawl("rss", {"feeds": str(feeds)}, f"sqlite:///{tmp_path / 'crawl.db'}")

    assert result.returncode == ExitCode.FINISHED, result.log[-6000:]
    assert_clean(result)
    assert result.stat("newscrawl/rss/feed_failed") == 1
    assert result.stat("newscrawl/rss/feed_parsed") == 1
    assert "Crawl ended (finished): " in result.log
    assert "1 feeds or sitemaps read, 1 failed (see the warnings above)" in result.log


def test_ctrl_c_says_what_is_pending_and_exits_130(
    network: DemoNetworkServer, tmp_path: Path
) -> None:
    database = tmp_path / "crawl.db"
    feeds = write_feeds_file(network.feed_lines(), tmp_path)
    command = [
        sys.executable, "-m", "scrapy", "crawl", "rss", "-a", f"feeds={feeds}",
        "-s", f"NEWSCRAWL_DATABASE_URL=sqlite:///{database}",
        # Slow, so that the interrupt lands while pages wait for their neighbours.
        "-s", "DOWNLOAD_DELAY=0.1", "-s", "CONCURRENT_REQUESTS=1",
        "-s", "TELNETCONSOLE_ENABLED=False", "-s", "NEWSCRAWL_SSRF_ALLOWLIST=127.0.0.1",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        command, cwd=REPO_ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while count_pages(database) < 5:
            assert process.poll() is None, "the crawl ended before it could be interrupted"
            assert time.monotonic() < deadline, "the crawl stored too few pages"
            time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        log, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert process.returncode == ExitCode.INTERRUPTED, log[-6000:]
    assert "Traceback" not in log, log[-6000:]
    assert "Crawl ended (shutdown): " in log
    assert "fetched pages pending in the database: the next crawl extracts them" in log, log[-4000:]
