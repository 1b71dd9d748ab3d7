"""Two re-polling workers (-a every=) share publishing feeds through Redis and PostgreSQL."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis
from scrapy import Request
from scrapy_redis.dupefilter import RFPDupeFilter
from sqlalchemy import Engine, create_engine, func, select
from sqlalchemy.orm import Session

from newscrawl.demo.publishing import (
    PublishingNetworkServer,
    PublishingPlan,
    PublishingRequestHandler,
)
from newscrawl.leasing_scheduler import build_lease_key
from newscrawl.storage.models import Article, Page
from tests.e2e.crawl_support import CrawlResult
from tests.scale_out.worker_support import (
    REDIS_URL,
    SharedCrawl,
    open_shared_crawl,
    start_workers,
    wait_for_workers,
)

# Ten category feeds, each publishing 10 articles per fetch up to 30: 300 articles in all.
PLAN = PublishingPlan(batch=10, window=20, limit_per_feed=30)
TOTAL_ARTICLES = 300
WAIT_SECONDS = 150
# Articles fetched twice that are tolerated (10 %); see the end of the test.
REFETCH_TOLERANCE = 30
WORKER_SETTINGS = {
    "CONCURRENT_REQUESTS": "2",
    "NEWSCRAWL_POLL_MIN_INTERVAL": "1s",
    "NEWSCRAWL_POLL_TICK": "0.5",
}


@pytest.fixture
def network() -> Iterator[PublishingNetworkServer]:
    with PublishingNetworkServer(PLAN) as server:
        yield server


@pytest.fixture
def article_hits(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Which workers (user agents) the demo servers answered, per article path."""
    hits: dict[str, list[str]] = defaultdict(list)
    lock = threading.Lock()
    serve = PublishingRequestHandler.do_GET

    def record_and_serve(handler: PublishingRequestHandler) -> None:
        if handler.path.endswith(".html"):
            with lock:
                hits[handler.path].append(str(handler.headers.get("User-Agent")))
        serve(handler)

    monkeypatch.setattr(PublishingRequestHandler, "do_GET", record_and_serve)
    return hits


def describe_refetched(hits: dict[str, list[str]]) -> str:
    """The article paths requested more than once, with the workers that requested them."""
    twice = {path: agents for path, agents in sorted(hits.items()) if len(agents) > 1}
    return f"{len(twice)} articles requested more than once: {twice}"


def count_done(engine: Engine) -> tuple[int, int]:
    """Stored articles and pages still pending."""
    with Session(engine) as session:
        articles = session.scalar(select(func.count()).select_from(Article)) or 0
        pending = session.scalar(
            select(func.count()).select_from(Page).where(Page.status == "pending")
        )
        return int(articles), int(pending or 0)


def wait_until_stored(engine: Engine, expected: int) -> None:
    """Return once `expected` articles are stored and no page is pending (or time is up)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            articles, pending = count_done(engine)
        except Exception:  # the workers may still be creating the schema
            articles, pending = 0, 1
        if articles >= expected and pending == 0:
            return
        time.sleep(1)


def describe_missing(
    shared: SharedCrawl,
    engine: Engine,
    missing: set[str],
    hits: dict[str, list[str]],
    logs: list[str],
) -> str:
    """Where each missing article got stuck: its page, lease, requests and log lines."""
    lines = [f"{len(missing)} published articles not stored:"]
    client = redis.Redis.from_url(REDIS_URL)
    try:
        with Session(engine) as session:
            for url in sorted(missing)[:10]:
                page = session.scalar(select(Page.status).where(Page.url == url))
                fingerprint = RFPDupeFilter(client, "").request_fingerprint(Request(url))
                dupefilter_key = f"{shared.redis_prefix}:rss:dupefilter"
                holder = client.get(build_lease_key(dupefilter_key, fingerprint))
                requested = hits.get(urlsplit(url).path, [])
                lines.append(f"{url}: page={page} lease={holder!r} requested_by={requested}")
                for worker, log in enumerate(logs):
                    named = [line for line in log.splitlines() if url in line]
                    lines.extend(f"  worker {worker}: {line}" for line in named)
    finally:
        client.close()
    return "\n".join(lines)


def summarise_stats(log: str) -> dict[str, int]:
    """The counters that explain a page fetched twice, for the failure message."""
    keys = (
        "newscrawl/rss/page_fetched",
        "newscrawl/leasing_scheduler/leased_elsewhere",
        "newscrawl/rss/known_article_skipped",
        "retry/count",
        "dupefilter/filtered",
    )
    return {key: CrawlResult(0, log).stat(key) for key in keys}


def test_two_polling_workers_store_each_published_article_once(
    network: PublishingNetworkServer, article_hits: dict[str, list[str]], tmp_path: Path
) -> None:
    feeds_file = tmp_path / "feeds.txt"
    feeds_file.write_text("\n".join(network.feed_lines()) + "\n", encoding="utf-8")
    with open_shared_crawl() as shared:
        workers = start_workers(
            2,
            "rss",
            {"feeds": str(feeds_file), "every": "1s"},
            {**shared.worker_settings(), **WORKER_SETTINGS},
        )
        engine = create_engine(shared.database_url)
        try:
            wait_until_stored(engine, TOTAL_ARTICLES)
            results = wait_for_workers(workers, interrupt=True)
            with Session(engine) as session:
                urls = list(session.scalars(select(Article.url)))
                statuses = set(session.scalars(select(Page.status).distinct()))
            missing = network.published_urls() - set(urls)
            logs = [result.log for result in results]
            diagnosis = describe_missing(shared, engine, missing, article_hits, logs)
        finally:
            engine.dispose()

    for result in results:
        assert result.returncode == 0, result.log[-3000:]
    assert network.published_total() == TOTAL_ARTICLES
    assert len(urls) == len(set(urls))
    assert set(urls) == network.published_urls(), diagnosis
    assert statuses == {"extracted"}, [result.log[-3000:] for result in results]
    # Leases keep the workers from fetching (and so extracting) the same article most of the
    # time, but at 1 s poll intervals some runs still fetch a few of the 300 twice (up to 15
    # seen; cause not found yet, docs/scale-out.md). The stored articles above stay exact.
    fetched = sum(result.stat("newscrawl/rss/page_fetched") for result in results)
    stored = sum(result.stat("newscrawl/sql_storage/articles_stored") for result in results)
    stats = [summarise_stats(result.log) for result in results], describe_refetched(article_hits)
    leased = sum(result.stat("newscrawl/leasing_scheduler/leased_elsewhere") for result in results)
    # Most runs need the leases (a worker polls a feed whose new articles the other has
    # scheduled but not stored yet). A run that never needed them must have fetched each
    # article exactly once: the database check alone kept the workers apart.
    assert leased > 0 or fetched == TOTAL_ARTICLES, stats
    assert TOTAL_ARTICLES <= fetched <= TOTAL_ARTICLES + REFETCH_TOLERANCE, stats
    assert stored == fetched, stats
