"""Two workers share one crawl of the demo network through the real Redis and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from newscrawl.demo import DemoNetworkServer
from newscrawl.storage.models import Article, Page, Template
from tests.e2e.crawl_support import (
    list_article_urls,
    read_articles,
    run_crawl,
    write_feeds_file,
)
from tests.scale_out.worker_support import open_shared_crawl, run_workers

WORKERS = 2
# Few requests per worker, each after a delay, so that one worker cannot drain the shared queue
# alone: the demo network's pages sit on one host, so a 0.25 s delay gives one worker some 25 s
# of work, longer than the other's start-up on a loaded machine (under `make test`'s parallel
# workers a second worker once started after the first had finished at no delay). The idle
# grace must outlast the other worker's start-up and feed parsing too: with 3 s, a worker whose
# feeds the other had already taken closed before any article request reached the queue.
WORKER_SETTINGS = {
    "CONCURRENT_REQUESTS": "2",
    "DOWNLOAD_DELAY": "0.25",
    "NEWSCRAWL_FRONTIER_IDLE_CLOSE": "12",
}


@pytest.fixture(scope="module")
def network() -> Iterator[DemoNetworkServer]:
    with DemoNetworkServer() as server:
        yield server


@pytest.fixture
def feeds_file(network: DemoNetworkServer, tmp_path: Path) -> Path:
    return write_feeds_file(network.feed_lines(), tmp_path)


def test_two_workers_store_what_one_worker_stores(
    network: DemoNetworkServer, feeds_file: Path, tmp_path: Path
) -> None:
    single_url = f"sqlite:///{tmp_path / 'single.db'}"
    single = run_crawl("rss", {"feeds": str(feeds_file)}, single_url)
    assert single.returncode == 0, single.log[-3000:]
    single_urls = {article.url for article in read_articles(single_url)}
    assert single_urls == list_article_urls(network)

    with open_shared_crawl() as shared:
        workers = run_workers(
            WORKERS,
            "rss",
            {"feeds": str(feeds_file)},
            {**shared.worker_settings(), **WORKER_SETTINGS},
        )
        for worker in workers:
            assert worker.returncode == 0, worker.log[-3000:]
            # Each worker took part: the queue really was shared. (A worker may enqueue
            # nothing: the other can enqueue every feed first and parse them all, and the
            # shared dupefilter drops its own start requests.)
            assert worker.stat("scheduler/dequeued/redis") > 0, worker.log[-3000:]
            assert worker.stat("newscrawl/rss/page_fetched") > 0, worker.log[-3000:]
        # Every article page was fetched once, by one worker or the other.
        fetched = sum(worker.stat("newscrawl/rss/page_fetched") for worker in workers)
        assert fetched == len(single_urls)

        engine = create_engine(shared.database_url)
        try:
            with Session(engine) as session:
                article_urls = list(session.scalars(select(Article.url)))
                statuses = Counter(session.scalars(select(Page.status)))
                groups = set(session.scalars(select(Page.group_key).distinct()))
                templates = list(session.scalars(select(Template.group_key)))
                pages = session.scalar(select(func.count()).select_from(Page))
        finally:
            engine.dispose()

    # The same articles as one worker, none twice.
    assert len(article_urls) == len(set(article_urls))
    assert set(article_urls) == single_urls
    # No page lost: every fetched page was extracted.
    assert statuses == Counter({"extracted": pages})
    assert pages == len(single_urls)
    # Each page was extracted by exactly one worker.
    stored = sum(worker.stat("newscrawl/sql_storage/articles_stored") for worker in workers)
    assert stored == len(single_urls)
    # One template per group, learned once across the workers.
    assert sorted(templates) == sorted(groups)
    learned = sum(worker.stat("newscrawl/neighbour_buffer/templates_learned") for worker in workers)
    assert learned == len(groups), [worker.log[-2500:] for worker in workers]
