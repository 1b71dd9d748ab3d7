"""A real crawl over loopback HTTP through every pipeline, in a subprocess (Twisted's reactor
cannot be restarted inside the test process)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from newscrawl.categories import site_from_url
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.models import Article, CrawlRun, Page, Template
from tests.pipelines.crawl_script import HEARTBEAT_OPTION
from tests.pipelines.page_factory import build_page_html, build_story

REPO_ROOT = Path(__file__).resolve().parents[2]
PATHS = (
    [f"/world/story-{n}.html" for n in range(8)]
    + [f"/sport/story-{n}.html" for n in range(3)]
    + ["/culture/story-0.html"]
)
# Many groups too small to learn a template while the crawl runs: every page waits for the
# final flush. More groups than the flush works on at once (group_flush.FINAL_FLUSH_GROUPS).
SMALL_GROUP_PATHS = [
    f"/group{group}/story-{2 * group + page}.html" for group in range(48) for page in range(2)
]


SERVED_PATHS = frozenset(PATHS) | frozenset(SMALL_GROUP_PATHS)


class NewsPageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        if self.path not in SERVED_PATHS:
            self.send_error(404)
            return
        category = self.path.split("/")[1]
        number = int(self.path.rsplit("-", 1)[1].split(".")[0])
        body = build_page_html("loopback", category, number).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def news_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), NewsPageHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def run_crawl(
    news_server: str,
    database_url: str,
    *,
    timeout: float = 120,
    paths: list[str] = PATHS,
    **settings: object,
) -> str:
    """Crawl `paths` in a subprocess; return its log."""
    command = [sys.executable, str(Path(__file__).with_name("crawl_script.py"))]
    result = subprocess.run(
        [*command, news_server, database_url,
         json.dumps({"NEWSCRAWL_SSRF_ALLOWLIST": ["127.0.0.1"], **settings}), *paths],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stderr


def read_timing(log: str) -> dict[str, float]:
    """The signal times crawl_script.py printed at the end of its crawl."""
    (line,) = [line for line in log.splitlines() if line.startswith("CRAWL_TIMING ")]
    timing: dict[str, float] = json.loads(line.removeprefix("CRAWL_TIMING "))
    return timing


def count_pages(database_url: str) -> dict[str, int]:
    engine = create_database_engine(database_url)
    try:
        with Session(engine) as session:
            statement = select(Page.status, func.count()).group_by(Page.status)
            return {status: int(n) for status, n in session.execute(statement).all()}
    finally:
        engine.dispose()


def test_crawl_extracts_every_fetched_page(news_server: str, own_database_url: str) -> None:
    # An empty, unmigrated database: this crawl starts from one, as a first crawl does. The other
    # crawls here start from the session's migrated database (conftest), which spares a migration.
    database_url = own_database_url
    log = run_crawl(news_server, database_url, NEWSCRAWL_NEIGHBOURS=5)
    assert "Progress:" in log
    engine = create_database_engine(database_url)
    try:
        with Session(engine) as session:
            articles = {a.url: a for a in session.scalars(select(Article))}
            templates = session.scalar(select(func.count()).select_from(Template))
            (run,) = session.scalars(select(CrawlRun))
    finally:
        engine.dispose()
    assert count_pages(database_url) == {"extracted": len(PATHS)}
    assert set(articles) == {news_server + path for path in PATHS}
    site = site_from_url(news_server)
    world = [a for a in articles.values() if a.category == "world"]
    assert {a.site for a in articles.values()} == {site}
    assert {a.extraction_method for a in world} == {"neighbours"}
    assert articles[news_server + "/culture/story-0.html"].extraction_method == "single"
    for article in world:
        number = int(article.url.rsplit("-", 1)[1].split(".")[0])
        assert all(paragraph in article.text for paragraph in build_story(number))
        assert "Copyright" not in article.text
    assert templates == 2  # world (full) and sport (partial, at the end of the crawl)
    assert run.finish_reason == "finished" and run.finished_at is not None
    assert run.stats is not None
    assert run.stats["newscrawl/sql_storage/articles_stored"] == len(PATHS)
    assert run.stats["newscrawl/neighbour_buffer/pages_buffered"] >= 4
    assert run.stats.get("item_error_count", 0) == 0


def test_crawl_closed_early_leaves_pending_pages_to_the_next_crawl(
    news_server: str, database_url: str
) -> None:
    # Closing while a group flush re-injects pages must neither hang nor lose those pages.
    log = run_crawl(news_server, database_url, NEWSCRAWL_NEIGHBOURS=5, CLOSESPIDER_ITEMCOUNT=2)
    assert "closespider_itemcount" in log
    # Pages not fetched before the close are fetched again by the next crawl.
    assert count_pages(database_url).get("pending", 0) > 0
    run_crawl(news_server, database_url, NEWSCRAWL_NEIGHBOURS=5)
    assert count_pages(database_url) == {"extracted": len(PATHS)}


def test_crawl_closes_right_after_its_last_page_is_stored(
    news_server: str, database_url: str
) -> None:
    # The final idle flush re-injects the partial groups; once they are stored the engine must
    # re-check idleness at once. With Scrapy's idle heartbeat set to an hour, nothing else
    # would: the crawl either closes by itself or hangs until the timeout fails the test.
    log = run_crawl(
        news_server,
        database_url,
        timeout=90,
        NEWSCRAWL_NEIGHBOURS=5,
        **{HEARTBEAT_OPTION: 3600},
    )
    timing = read_timing(log)
    assert count_pages(database_url) == {"extracted": len(PATHS)}
    # The last items came from the idle flush, after the engine first went idle.
    assert timing["last_item_scraped"] <= timing["last_item_done"] < timing["last_spider_idle"]
    assert timing["last_spider_idle"] <= timing["spider_closed"]


def test_final_flush_of_many_small_groups_does_not_wait_the_batch_delay_per_group(
    news_server: str, tmp_path: Path
) -> None:
    # With a long batch delay, a flush whose writes each waited for company would pay it once
    # per round of groups (48 groups: at least 3 rounds). Once the spider is idle nothing else
    # is coming: the last page's admission may wait one delay, the flush none.
    delay = 2.0
    database_url = f"sqlite:///{tmp_path / 'small-groups.db'}"
    log = run_crawl(
        news_server,
        database_url,
        paths=SMALL_GROUP_PATHS,
        NEWSCRAWL_WRITE_BATCH_DELAY=delay,
    )
    timing = read_timing(log)
    assert count_pages(database_url) == {"extracted": len(SMALL_GROUP_PATHS)}
    assert "'newscrawl/neighbour_buffer/groups_flushed_partial': 48" in log
    # The flush came after the last fetch (every page waited for it).
    assert timing["last_response"] < timing["last_spider_idle"]
    assert timing["spider_closed"] - timing["last_response"] < 2.5 * delay
