"""What an extraction worker process runs: parse a page once, run its stages, build the article.

This module imports only the extraction core and the standard library, so worker processes
start light (no Scrapy, Twisted or SQLAlchemy) and everything crossing the process boundary
is a plain picklable value.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from dataclasses import dataclass

from newscrawl.extraction import (
    Article,
    ExtractionConfig,
    SiteTemplate,
    build_article,
    parse_document,
)
from newscrawl.extraction.stages import run_stages
from newscrawl.extraction.word_tokens import count_text_words
from newscrawl.stats_keys import StageEvent


@dataclass(frozen=True)
class ExtractionJob:
    """One page to extract, with the stages the enabled stage pipelines asked for.

    `stages` holds names from `newscrawl.extraction.stages.STAGES`; they run in that order.
    """

    url: str
    # Decoded by the caller (page_items.decode_body), so workers need no storage imports.
    html: str | bytes
    title: str | None
    template: SiteTemplate | None
    stages: tuple[str, ...]
    config: ExtractionConfig
    # The template was learned from this page too (see `remove_static_noise`).
    template_includes_page: bool = False


@dataclass(frozen=True)
class StageOutcome:
    """What one stage did: `applied`, `failed` or `unparsable` (its stats event)."""

    stage: str
    event: StageEvent
    # The formatted traceback when the stage failed or the page could not be parsed.
    detail: str | None = None


@dataclass(frozen=True)
class ExtractionOutcome:
    """The article, or why there is none, and what each requested stage did."""

    article: Article | None
    stages: tuple[StageOutcome, ...]
    # Why there is no article (the exception's repr; storage prefixes "extraction error: "),
    # and its traceback.
    error: str | None = None
    detail: str | None = None
    # The page had more elements than the extraction reads (`Document.truncated`).
    truncated: bool = False
    # The words of the article's text (count_text_words): counted here, not on the crawl's
    # reactor thread, which storage and the quality counts would otherwise share.
    word_count: int = 0


def prepare_worker(crawl_pid: int) -> None:
    """Pool initializer: ignore Ctrl-C, and exit once the crawl process is gone.

    Ctrl-C reaches the whole process group; Scrapy shuts down gracefully on the first SIGINT
    and lets the pages in flight finish, which a worker killed by the same SIGINT would fail.
    A worker outlives a crawl killed with SIGKILL (it waits on a queue it holds both ends of),
    hence the watch.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(
        target=watch_crawl_process, args=(crawl_pid,), name="crawl-watch", daemon=True
    ).start()


def warm_up_worker() -> None:
    """A no-op task that makes the pool start a worker process before the first page."""


def watch_crawl_process(crawl_pid: int, interval: float = 1.0) -> None:
    """End this worker at once when the crawl process no longer exists."""
    while True:
        time.sleep(interval)
        try:
            os.kill(crawl_pid, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:
            # The pid was reused by another user's process: ours is gone.
            os._exit(0)


def extract_page_job(job: ExtractionJob) -> ExtractionOutcome:
    """Parse the page once, run the requested stages in their declared order, build the article.

    The crawl's only extraction path, in a worker process or inline: a failing stage is
    skipped, a page that cannot be parsed or built has no article and a reason.
    """
    try:
        document = parse_document(job.html, url=job.url)
    except Exception as exc:
        detail = traceback.format_exc()
        unparsable = tuple(StageOutcome(stage, "unparsable", detail) for stage in job.stages)
        return ExtractionOutcome(None, unparsable, repr(exc), detail)
    results = run_stages(
        document,
        template=job.template,
        title=job.title,
        config=job.config,
        template_includes_page=job.template_includes_page,
        only=job.stages,
    )
    outcomes = tuple(
        StageOutcome(result.name, "applied" if result.applied else "failed", result.error)
        for result in results
    )
    try:
        article = build_article(document, title=job.title, config=job.config)
    except Exception as exc:
        return ExtractionOutcome(
            None, outcomes, repr(exc), traceback.format_exc(), document.truncated
        )
    return ExtractionOutcome(
        article,
        outcomes,
        truncated=document.truncated,
        word_count=count_text_words(article.text),
    )
