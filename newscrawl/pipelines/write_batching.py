"""The pipelines' batched writes: settings, and a BatchWriter wired to the spool and the stats."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings
from scrapy.statscollectors import StatsCollector
from sqlalchemy import Engine

from newscrawl import settings as project_settings
from newscrawl.pipelines.page_spooling import PageSpooler, is_database_outage
from newscrawl.stats_keys import count_event
from newscrawl.storage.batch_writer import BatchWriter


@dataclass(frozen=True)
class WriteBatching:
    """How many writes share a transaction, and how long the first one waits for company."""

    batch_size: int = project_settings.NEWSCRAWL_WRITE_BATCH_SIZE
    delay: float = project_settings.NEWSCRAWL_WRITE_BATCH_DELAY


def read_write_batching(settings: BaseSettings) -> WriteBatching:
    """NEWSCRAWL_WRITE_BATCH_SIZE (1: one transaction per write) and NEWSCRAWL_WRITE_BATCH_DELAY."""
    batch_size = settings.getint(
        "NEWSCRAWL_WRITE_BATCH_SIZE", project_settings.NEWSCRAWL_WRITE_BATCH_SIZE
    )
    if batch_size < 1:
        raise NotConfigured(f"NEWSCRAWL_WRITE_BATCH_SIZE must be at least 1, not {batch_size}")
    delay = settings.getfloat(
        "NEWSCRAWL_WRITE_BATCH_DELAY", project_settings.NEWSCRAWL_WRITE_BATCH_DELAY
    )
    if delay < 0:
        raise NotConfigured(f"NEWSCRAWL_WRITE_BATCH_DELAY must not be negative, not {delay}")
    return WriteBatching(batch_size=batch_size, delay=delay)


def build_batch_writer(
    engine: Engine,
    batching: WriteBatching,
    *,
    spooler: PageSpooler | None,
    stats: StatsCollector,
    event_keys: Mapping[str, str],
) -> BatchWriter:
    """A BatchWriter that gives up at once while the crawl stops for an outage, and counts its
    events (`batches`, `batch_rows`, `batches_split`, `delays`) under `event_keys`."""

    def count_writer_event(event: str, count: int) -> None:
        count_event(stats, event_keys[event], count)

    return BatchWriter(
        engine,
        batch_size=batching.batch_size,
        delay=batching.delay,
        guard=spooler.unless_stopping if spooler is not None else None,
        is_outage=is_database_outage,
        on_event=count_writer_event,
    )
