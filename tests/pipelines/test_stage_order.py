"""The stage pipelines and their settings follow the declared stage list."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings
from scrapy.utils.misc import load_object

from newscrawl import settings as project_settings
from newscrawl.extraction.stages import STAGE_ORDER, STAGES, Stage
from newscrawl.pipelines.extraction_config import build_extraction_config
from newscrawl.pipelines.extraction_stage import ExtractionStagePipeline


def list_stage_pipelines() -> list[type[ExtractionStagePipeline]]:
    """The project's stage pipelines, by ITEM_PIPELINES priority."""
    loaded = [
        (priority, load_object(path)) for path, priority in project_settings.ITEM_PIPELINES.items()
    ]
    return [
        cls
        for _, cls in sorted(loaded, key=lambda pair: pair[0])
        if issubclass(cls, ExtractionStagePipeline)
    ]


def test_pipeline_priorities_follow_the_declared_stage_order() -> None:
    assert tuple(cls.component for cls in list_stage_pipelines()) == STAGE_ORDER


@pytest.mark.parametrize("stage", STAGES, ids=STAGE_ORDER)
def test_enabled_setting_switches_the_config_flag(stage: Stage) -> None:
    pipeline = next(cls for cls in list_stage_pipelines() if cls.component == stage.name)
    assert pipeline.enabled_setting == f"NEWSCRAWL_{stage.name.upper()}_ENABLED"
    assert stage.is_enabled(build_extraction_config(Settings()))
    switched_off = Settings({pipeline.enabled_setting: False})
    assert not stage.is_enabled(build_extraction_config(switched_off))
