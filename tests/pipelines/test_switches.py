from __future__ import annotations

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from newscrawl.pipelines.dynamic_noise import DynamicNoisePipeline
from newscrawl.pipelines.neighbour_buffer import NeighbourBufferPipeline
from newscrawl.pipelines.sql_storage import SqlStoragePipeline
from newscrawl.pipelines.static_noise import StaticNoisePipeline
from newscrawl.pipelines.title_relevance import TitleRelevancePipeline

SWITCHES = [
    (NeighbourBufferPipeline, "NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED"),
    (StaticNoisePipeline, "NEWSCRAWL_STATIC_NOISE_ENABLED"),
    (DynamicNoisePipeline, "NEWSCRAWL_DYNAMIC_NOISE_ENABLED"),
    (TitleRelevancePipeline, "NEWSCRAWL_TITLE_RELEVANCE_ENABLED"),
    (SqlStoragePipeline, "NEWSCRAWL_SQL_STORAGE_ENABLED"),
]


@pytest.mark.parametrize(("pipeline_class", "setting"), SWITCHES)
def test_switched_off_pipeline_is_not_configured(pipeline_class: type, setting: str) -> None:
    crawler = get_crawler(settings_dict={setting: False})
    with pytest.raises(NotConfigured, match=setting):
        build_from_crawler(pipeline_class, crawler)


@pytest.mark.parametrize(("pipeline_class", "setting"), SWITCHES)
def test_pipeline_is_on_by_default(pipeline_class: type, setting: str) -> None:
    assert build_from_crawler(pipeline_class, get_crawler()) is not None


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"NEWSCRAWL_NEIGHBOURS": 0}, "NEWSCRAWL_NEIGHBOURS"),
        ({"NEWSCRAWL_MIN_NEIGHBOURS": 11}, "NEWSCRAWL_MIN_NEIGHBOURS"),
        ({"NEWSCRAWL_EXTRACTION_CONFIG": "fancy"}, "NEWSCRAWL_EXTRACTION_CONFIG"),
    ],
)
def test_bad_buffer_settings_name_the_setting(settings: dict[str, object], named: str) -> None:
    with pytest.raises(NotConfigured, match=named):
        build_from_crawler(NeighbourBufferPipeline, get_crawler(settings_dict=settings))
