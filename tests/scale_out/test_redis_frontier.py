"""The add-on that shares the scheduler and dupefilter through scrapy-redis."""

from __future__ import annotations

import pytest
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from newscrawl import settings as project_settings
from newscrawl.addons.redis_frontier import RedisFrontierAddon
from newscrawl.extensions.frontier_idle import FrontierIdleExtension


def build_settings(values: dict[str, object]) -> Settings:
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.setdict(values, priority="cmdline")
    return settings


def test_without_redis_url_the_scheduler_stays_local() -> None:
    settings = build_settings({"NEWSCRAWL_REDIS_URL": ""})
    before = settings.copy_to_dict()
    RedisFrontierAddon().update_settings(settings)
    assert settings.copy_to_dict() == before


def test_redis_url_switches_on_the_shared_frontier() -> None:
    settings = build_settings({"NEWSCRAWL_REDIS_URL": "redis://127.0.0.1:6379/3"})
    RedisFrontierAddon().update_settings(settings)
    assert settings["SCHEDULER"] == "newscrawl.leasing_scheduler.LeasingRedisScheduler"
    assert settings["DUPEFILTER_CLASS"] == "scrapy_redis.dupefilter.RFPDupeFilter"
    assert settings["REDIS_URL"] == "redis://127.0.0.1:6379/3"
    # A worker that stops must not wipe the queue the others still crawl from.
    assert settings.getbool("SCHEDULER_PERSIST")
    assert settings.getint("SCHEDULER_IDLE_BEFORE_CLOSE") == 0
    assert FrontierIdleExtension in settings.getdict("EXTENSIONS")


def test_command_line_keys_win_over_the_add_on() -> None:
    settings = build_settings(
        {"NEWSCRAWL_REDIS_URL": "redis://127.0.0.1:6379/0", "SCHEDULER_QUEUE_KEY": "mine:q"}
    )
    RedisFrontierAddon().update_settings(settings)
    assert settings["SCHEDULER_QUEUE_KEY"] == "mine:q"
    assert settings["SCHEDULER_DUPEFILTER_KEY"] == "newscrawl:%(spider)s:dupefilter"


def test_idle_worker_waits_and_a_response_restarts_the_wait() -> None:
    crawler = get_crawler(settings_dict={"NEWSCRAWL_FRONTIER_IDLE_CLOSE": 3600})
    extension = FrontierIdleExtension.from_crawler(crawler)
    with pytest.raises(DontCloseSpider):
        extension.on_spider_idle()
    extension.on_response_received()
    with pytest.raises(DontCloseSpider):
        extension.on_spider_idle()
    assert crawler.stats is not None
    assert crawler.stats.get_value("newscrawl/frontier_idle/idle_waits") == 2


def test_idle_wait_can_be_switched_off() -> None:
    crawler = get_crawler(settings_dict={"NEWSCRAWL_FRONTIER_IDLE_CLOSE": 0})
    with pytest.raises(NotConfigured, match="NEWSCRAWL_FRONTIER_IDLE_CLOSE"):
        FrontierIdleExtension.from_crawler(crawler)
