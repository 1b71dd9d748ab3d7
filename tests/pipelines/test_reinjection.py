"""EngineReinjector's two reaches into Scrapy internals, and what it does if they are gone."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from newscrawl.pipelines.reinjection import EngineReinjector


class CallCounter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


def build_reinjector(engine: Any) -> EngineReinjector:
    return EngineReinjector(SimpleNamespace(engine=engine))  # type: ignore[arg-type]


def test_idle_check_schedules_the_engines_own_next_call() -> None:
    schedule = CallCounter()
    engine = SimpleNamespace(
        spider=object(), _slot=SimpleNamespace(nextcall=SimpleNamespace(schedule=schedule))
    )
    build_reinjector(engine).request_idle_check()
    assert schedule.calls == 1


def test_idle_check_does_nothing_without_an_open_spider() -> None:
    schedule = CallCounter()
    slot = SimpleNamespace(nextcall=SimpleNamespace(schedule=schedule))
    build_reinjector(None).request_idle_check()
    build_reinjector(SimpleNamespace(spider=None, _slot=slot)).request_idle_check()
    assert schedule.calls == 0


def test_an_engine_without_the_private_slot_is_left_to_its_heartbeat(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # What a later Scrapy that renamed ExecutionEngine._slot would look like.
    reinjector = build_reinjector(SimpleNamespace(spider=object()))
    with caplog.at_level(logging.WARNING):
        reinjector.request_idle_check()
        reinjector.request_idle_check()
    warnings = [r for r in caplog.records if "Cannot wake this Scrapy engine" in r.getMessage()]
    assert len(warnings) == 1
