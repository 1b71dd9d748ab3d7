"""Test-only extraction tasks for the pool, module-level so that worker processes import them."""

from __future__ import annotations

import os

from newscrawl.pipelines.extraction_pool_worker import (
    ExtractionJob,
    ExtractionOutcome,
    extract_page_job,
)

CRASH_MARK = "crash-me"
RAISE_MARK = "raise-me"


def crash_on_marked_pages(job: ExtractionJob) -> ExtractionOutcome:
    """Die like a segfaulting worker on pages whose URL holds CRASH_MARK."""
    if CRASH_MARK in job.url:
        os._exit(70)
    return extract_page_job(job)


def raise_on_marked_pages(job: ExtractionJob) -> ExtractionOutcome:
    """Raise past the worker function on pages whose URL holds RAISE_MARK."""
    if RAISE_MARK in job.url:
        raise ValueError(f"refused {job.url}")
    return extract_page_job(job)
