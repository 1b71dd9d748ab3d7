"""LeasingRedisScheduler: scrapy-redis's shared scheduler, plus short leases on re-polled URLs.

Re-polled feeds schedule their articles with `dont_filter=True`: the database, not an
ever-growing dupefilter, says which articles are known. But an article listed by two polls of
a feed, taken by two workers before the first fetch was stored, would be fetched by both.
So a `dont_filter` request first takes a lease on its fingerprint in Redis
(`SET key worker NX PX ttl`): another worker's lease drops it, the worker's own lets it
through, and the lease expires after NEWSCRAWL_FRONTIER_LEASE seconds, so the articles of a
worker that died are fetched again at a later poll.

A request that won its lease carries it in its meta, through the shared queue: its retries
and redirects are scheduled by whichever worker downloaded it, often not the one that leased
it, and must not be dropped as leased elsewhere (the article would be lost for the lease).

It also counts its stats the current way (scrapy-redis 0.9.1 passes `spider` to them, which
Scrapy 2.13+ deprecates).
"""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any, Self

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy_redis.scheduler import Scheduler

from newscrawl import settings as project_settings
from newscrawl.stats_keys import (
    LEASING_SCHEDULER_LEASED_ELSEWHERE,
    SCHEDULER_DEQUEUED_REDIS,
    SCHEDULER_DUPEFILTER_FILTERED,
    SCHEDULER_ENQUEUED_REDIS,
    count_event,
)

# Request meta key set on a request that holds its lease (copied to retries and redirects).
LEASE_META_KEY = "newscrawl_lease"


def build_lease_key(dupefilter_key: str, fingerprint: str) -> str:
    """The Redis key of the lease on one request fingerprint."""
    return f"{dupefilter_key}:lease:{fingerprint}"


def is_polled_feed(request: Request) -> bool:
    """Feed polls carry conditional-GET handling; the database claim already shares them."""
    return 304 in request.meta.get("handle_httpstatus_list", ())


class LeasingRedisScheduler(Scheduler):
    """A Redis-shared scheduler that lets one worker at a time schedule a dont_filter URL."""

    lease_seconds: float = 600.0
    worker_id: str = ""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        instance: Self = super().from_crawler(crawler)
        instance.lease_seconds = crawler.settings.getfloat(
            "NEWSCRAWL_FRONTIER_LEASE", project_settings.NEWSCRAWL_FRONTIER_LEASE
        )
        instance.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        return instance

    def enqueue_request(self, request: Request) -> bool:
        # scrapy-redis's own version passes `spider` to the stats, which Scrapy deprecates.
        if self._needs_lease(request):
            if not self._take_lease(request):
                count_event(self.stats, LEASING_SCHEDULER_LEASED_ELSEWHERE)
                return False
            request.meta[LEASE_META_KEY] = self.worker_id
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            count_event(self.stats, SCHEDULER_DUPEFILTER_FILTERED)
            return False
        count_event(self.stats, SCHEDULER_ENQUEUED_REDIS)
        self.queue.push(request)
        return True

    def next_request(self) -> Request | None:
        request: Request | None = self.queue.pop(self.idle_before_close)
        if request is not None:
            count_event(self.stats, SCHEDULER_DEQUEUED_REDIS)
        return request

    def _needs_lease(self, request: Request) -> bool:
        return (
            request.dont_filter
            and self.lease_seconds > 0
            and not is_polled_feed(request)
            and LEASE_META_KEY not in request.meta
        )

    def _take_lease(self, request: Request) -> bool:
        key = build_lease_key(self.df.key, self.df.request_fingerprint(request))
        ttl_ms = max(1, int(self.lease_seconds * 1000))
        if self.server.set(key, self.worker_id, nx=True, px=ttl_ms):
            return True
        holder: Any = self.server.get(key)
        if isinstance(holder, bytes):
            holder = holder.decode("utf-8", "replace")
        return bool(holder == self.worker_id)
