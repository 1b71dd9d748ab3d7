"""Tracking parameters and fragments are stripped, so duplicates collapse into one URL."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.exceptions import NotConfigured

from newscrawl.middlewares.tracking_params import (
    TrackingParamsMiddleware,
    remove_tracking_params,
)
from tests.middlewares.building import build_middleware, stat


@pytest.mark.parametrize(
    ("url", "clean"),
    [
        ("https://n.example/a?utm_source=x&utm_medium=y", "https://n.example/a"),
        ("https://n.example/a?id=3&fbclid=abc&page=2", "https://n.example/a?id=3&page=2"),
        ("https://n.example/a?gclid=1#comments", "https://n.example/a"),
        ("https://n.example/a#top", "https://n.example/a"),
        ("https://n.example/a?UTM_Campaign=z&b=1&a=2", "https://n.example/a?b=1&a=2"),
        ("https://n.example/a?b=1&a=2", "https://n.example/a?b=1&a=2"),
        ("https://n.example/utm_source/a", "https://n.example/utm_source/a"),
    ],
)
def test_remove_tracking_params(url: str, clean: str) -> None:
    assert remove_tracking_params(url) == clean


def test_a_tracked_request_is_rescheduled_under_its_clean_url() -> None:
    middleware, crawler = build_middleware(TrackingParamsMiddleware)
    request = Request("https://n.example/a?utm_source=x", cb_kwargs={"hint": 1})
    cleaned = middleware.process_request(request)
    assert cleaned is not None and cleaned.url == "https://n.example/a"
    assert cleaned.cb_kwargs == {"hint": 1} and not cleaned.dont_filter
    assert stat(crawler, "newscrawl/tracking_params/stripped") == 1
    assert middleware.process_request(cleaned) is None


def test_a_fragment_only_change_is_not_filtered_as_its_own_duplicate() -> None:
    middleware, _ = build_middleware(TrackingParamsMiddleware)
    cleaned = middleware.process_request(Request("https://n.example/a#comments"))
    assert cleaned is not None and cleaned.url == "https://n.example/a" and cleaned.dont_filter


def test_the_parameter_list_is_a_setting() -> None:
    middleware, _ = build_middleware(
        TrackingParamsMiddleware, {"NEWSCRAWL_TRACKING_PARAMS": ["ref", "src_*"]}
    )
    cleaned = middleware.process_request(Request("https://n.example/a?ref=x&src_id=1&utm_x=2"))
    assert cleaned is not None and cleaned.url == "https://n.example/a?utm_x=2"


def test_switching_it_off_names_the_setting() -> None:
    with pytest.raises(NotConfigured, match="NEWSCRAWL_STRIP_TRACKING_PARAMS"):
        build_middleware(TrackingParamsMiddleware, {"NEWSCRAWL_STRIP_TRACKING_PARAMS": False})
