"""RedisFrontierAddon: a crawl frontier shared by several workers, through scrapy-redis.

When NEWSCRAWL_REDIS_URL is set, the scheduler queue and the request dupefilter live in Redis,
so every worker started with the same URL (and the same NEWSCRAWL_DATABASE_URL) takes its
requests from one queue and skips what any worker has already scheduled. Without it, the
crawl keeps Scrapy's in-memory scheduler.
"""

from __future__ import annotations

from scrapy.settings import BaseSettings

from newscrawl import settings as project_settings
from newscrawl.extensions.frontier_idle import FrontierIdleExtension

# Priority of the values set here: above Scrapy's defaults, below the project settings module
# (which sets none of these), spider settings and -s on the command line.
SETTINGS_PRIORITY = "addon"
IDLE_EXTENSION_ORDER = 520


class RedisFrontierAddon:
    """Points SCHEDULER and DUPEFILTER_CLASS at scrapy-redis when NEWSCRAWL_REDIS_URL is set."""

    def update_settings(self, settings: BaseSettings) -> None:
        redis_url = settings.get("NEWSCRAWL_REDIS_URL", project_settings.NEWSCRAWL_REDIS_URL)
        if not redis_url:
            # The usual single-process crawl: nothing to change, and nothing worth a warning.
            return
        values = {
            "SCHEDULER": "newscrawl.leasing_scheduler.LeasingRedisScheduler",
            "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            "REDIS_URL": redis_url,
            # Keep the queue when a worker stops: the others still crawl from it, and a
            # restarted worker resumes it. Clear it with `redis-cli del` to start afresh.
            "SCHEDULER_PERSIST": True,
            # Never block the reactor on an empty queue (scrapy-redis pops with this timeout);
            # FrontierIdleExtension keeps an idle worker waiting instead.
            "SCHEDULER_IDLE_BEFORE_CLOSE": 0,
            "SCHEDULER_QUEUE_KEY": "newscrawl:%(spider)s:requests",
            "SCHEDULER_DUPEFILTER_KEY": "newscrawl:%(spider)s:dupefilter",
        }
        for name, value in values.items():
            settings.set(name, value, priority=SETTINGS_PRIORITY)
        settings.set_in_component_priority_dict(
            "EXTENSIONS", FrontierIdleExtension, IDLE_EXTENSION_ORDER
        )
