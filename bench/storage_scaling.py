"""Per-page cost of the storage paths as the store grows, and batched writes against today's.

Run from the repository root:
    python -m bench.storage_scaling                          # SQLite, temporary file
    python -m bench.storage_scaling --database postgresql    # the local test PostgreSQL

Each page takes the crawl's writes, with `--concurrency` pages in flight as in a busy crawl:
its admission into the neighbour buffer (`write_admission`, into a group with a template that
is re-learned every NEWSCRAWL_TEMPLATE_MAX_PAGES pages, as the buffer does), then its article
(`write_article`). The machine is shared, so every figure is a ratio of timings taken in turn
in the same run: a probe of `--probe` new pages is timed on a store grown to each checkpoint
(1,000 ... 20,000 pages) and on a reference store of 1,000 pages, alternately, `--rounds`
times (probe rows are deleted after each probe, untimed); the median ratio says how the
per-page cost grows (issue #6: flat within 10% from 1,000 to 20,000 pages). The same
alternation compares batched writes (BatchWriter, NEWSCRAWL_WRITE_BATCH_SIZE) with the code
before batching: one transaction per write, each in its own worker thread (same statements).
The loop is closed (a page's next write waits for its previous one), so with few pages in
flight the batch delay shows up as time per page; `--concurrency 400` measures saturation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, delete, update
from sqlalchemy.orm import Session

from newscrawl.storage.article_repository import write_article
from newscrawl.storage.batch_writer import BatchWriter
from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.migrations import upgrade_database
from newscrawl.storage.models import Article, Page, Template
from newscrawl.storage.page_repository import write_admission
from newscrawl.storage.records import ArticleRecord, PageRecord, TemplateRecord
from newscrawl.storage.retry import run_in_thread_with_retry
from newscrawl.storage.upsert import build_upsert

T = TypeVar("T")

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TEMPLATE_MAX_PAGES = 1000
# Probe pages are numbered apart from the stored ones.
PROBE_BASE = 10_000_000
NOW = datetime(2026, 11, 22, tzinfo=UTC)
WORDS = ["harbour", "council", "budget", "river", "station", "bridge", "school", "museum"]


@contextmanager
def open_database(kind: str) -> Iterator[Engine]:
    """A migrated, empty database: a temporary SQLite file or a throw-away PostgreSQL schema."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            engine = create_database_engine(f"sqlite:///{Path(directory) / 'bench.db'}")
            try:
                upgrade_database(engine)
                yield engine
            finally:
                engine.dispose()
        return
    schema = f"newscrawl_bench_{uuid.uuid4().hex[:12]}"
    admin = create_database_engine(POSTGRES_URL)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    engine = create_database_engine(f"{POSTGRES_URL}?options=-csearch_path%3D{schema}")
    try:
        upgrade_database(engine)
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


def build_page(number: int, groups: int) -> PageRecord:
    """A page of about 12 kB of HTML in one of `groups` (site, category) groups."""
    site = f"site{number % groups}.test"
    paragraphs = "".join(
        f"<p>Story {number} paragraph {i}: "
        + " ".join(WORDS[(number + i + k) % len(WORDS)] for k in range(40))
        + "</p>"
        for i in range(30)
    )
    return PageRecord(
        url=f"http://{site}/world/story-{number}.html",
        site=site,
        category="world",
        body=f"<html><body><article>{paragraphs}</article></body></html>".encode(),
        fetched_at=NOW,
        title=f"Story {number}",
        feed_url=f"http://{site}/world/rss.xml",
        authors=["Desk Reporter"],
    )


def build_article(page: PageRecord) -> ArticleRecord:
    text = page.body.decode()[:4000]
    return ArticleRecord(
        url=page.url,
        title=page.title or "",
        text=text,
        html=text,
        site=page.site,
        category=page.category,
        fetched_at=NOW,
        extracted_at=NOW,
        extraction_method="neighbours",
        config_version="bench",
        feed=page.feed_url,
    )


def seed_templates(engine: Engine, groups: int) -> None:
    """Every group already has a template, as in a crawl past its first pages."""
    with Session(engine) as session, session.begin():
        for group in range(groups):
            record = TemplateRecord(
                group_key=f"site{group}.test|world",
                site=f"site{group}.test",
                category="world",
                template=b"t" * 2000,
                format_version=1,
                page_count=10,
                last_page_id=0,
                config_version="bench",
                learned_at=NOW,
            )
            session.execute(
                build_upsert(
                    engine.dialect.name,
                    Template.__table__,  # type: ignore[arg-type]
                    asdict(record),
                    conflict_columns=["group_key"],
                )
            )


def relearn_template(session: Session, group_key: str, last_page_id: int) -> None:
    """Stands for re-learning: the template now covers the group up to `last_page_id`."""
    session.execute(
        update(Template).where(Template.group_key == group_key).values(last_page_id=last_page_id)
    )


class TransactionPerWrite:
    """The code before batching: every write its own transaction, in its own worker thread."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def write(self, write: Callable[[Session], T], *, key: str = "") -> T:
        return await run_in_thread_with_retry(self._commit, write)

    def _commit(self, write: Callable[[Session], T]) -> T:
        with Session(self.engine) as session, session.begin():
            return write(session)

    async def close(self) -> None:
        return None


async def store_pages(
    writer: BatchWriter | TransactionPerWrite,
    numbers: range,
    groups: int,
    concurrency: int,
) -> None:
    """Run the writes of the pages `numbers`, `concurrency` pages at a time."""
    limit = asyncio.Semaphore(concurrency)

    async def store(number: int) -> None:
        async with limit:
            page = build_page(number, groups)
            key = f"{page.site}\n{page.url}"
            admission = await writer.write(
                partial(write_admission, page=page, count_limit=TEMPLATE_MAX_PAGES), key=key
            )
            if admission.pages_since_template >= TEMPLATE_MAX_PAGES:
                await writer.write(
                    partial(
                        relearn_template, group_key=page.group_key, last_page_id=admission.page_id
                    ),
                    key=key,
                )
            article = build_article(page)
            await writer.write(
                partial(write_article, article=article, page_id=admission.page_id, page=None),
                key=key,
            )

    await asyncio.gather(*(store(number) for number in numbers))


def delete_pages(engine: Engine, numbers: range, groups: int) -> None:
    """Take a probe's rows out again, so that every probe meets the same store."""
    urls = [build_page(number, groups).url for number in numbers]
    with Session(engine) as session, session.begin():
        session.execute(delete(Article).where(Article.url.in_(urls)))
        session.execute(delete(Page).where(Page.url.in_(urls)))


def build_writer(engine: Engine, mode: str) -> BatchWriter | TransactionPerWrite:
    if mode == "today":
        return TransactionPerWrite(engine)
    return BatchWriter(engine, batch_size=int(mode), delay=0.05)


async def time_probe(engine: Engine, mode: str, numbers: range, args: argparse.Namespace) -> float:
    """Milliseconds per page of one probe; its rows are deleted afterwards (untimed)."""
    writer = build_writer(engine, mode)
    started = time.perf_counter()
    await store_pages(writer, numbers, args.groups, args.concurrency)
    await writer.close()
    elapsed = time.perf_counter() - started
    await asyncio.to_thread(delete_pages, engine, numbers, args.groups)
    return elapsed * 1000 / len(numbers)


async def compare(
    first: tuple[Engine, str], second: tuple[Engine, str], args: argparse.Namespace
) -> dict[str, float]:
    """Median ms/page of the same probe on two (store, writer) set-ups, timed alternately."""
    times: tuple[list[float], list[float]] = ([], [])
    for round_number in range(args.rounds):
        start = PROBE_BASE + round_number * args.probe
        numbers = range(start, start + args.probe)
        order = (0, 1) if round_number % 2 == 0 else (1, 0)
        for index in order:
            engine, mode = (first, second)[index]
            times[index].append(await time_probe(engine, mode, numbers, args))
    ratios = [a / b for a, b in zip(*times, strict=True)]
    return {
        "first_ms_per_page": round(statistics.median(times[0]), 3),
        "second_ms_per_page": round(statistics.median(times[1]), 3),
        "ratio": round(statistics.median(ratios), 3),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    ours = str(args.batch_size)
    with open_database(args.database) as reference, open_database(args.database) as grown:
        for engine in (reference, grown):
            seed_templates(engine, args.groups)
        writer = build_writer(reference, ours)
        await store_pages(writer, range(1000), args.groups, args.concurrency)
        await writer.close()
        report: dict[str, Any] = {"database": args.database, "batch_size": ours}
        # Batched against today's code, on the same 1,000-page store.
        versus = await compare((reference, ours), (reference, "today"), args)
        report["batched_vs_today_at_1000"] = {
            "batched_ms_per_page": versus["first_ms_per_page"],
            "today_ms_per_page": versus["second_ms_per_page"],
            "batched_to_today": versus["ratio"],
        }
        growth = []
        stored = 0
        for checkpoint in args.checkpoints:
            writer = build_writer(grown, ours)
            await store_pages(writer, range(stored, checkpoint), args.groups, args.concurrency)
            await writer.close()
            stored = checkpoint
            result = await compare((grown, ours), (reference, ours), args)
            growth.append(
                {
                    "stored_pages": checkpoint,
                    "ms_per_page": result["first_ms_per_page"],
                    "ms_per_page_at_1000": result["second_ms_per_page"],
                    "to_1000": result["ratio"],
                }
            )
        report["growth"] = growth
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoints", default="1000,5000,10000,20000")
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--probe", type=int, default=300, help="pages per timed probe")
    parser.add_argument("--rounds", type=int, default=6, help="timed probes per set-up")
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    args.checkpoints = [int(value) for value in args.checkpoints.split(",")]
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
