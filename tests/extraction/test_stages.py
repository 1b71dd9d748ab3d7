"""The declared stage list: order, switches, failures, and extract() running it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from newscrawl.extraction import (
    Document,
    ExtractionConfig,
    SiteTemplate,
    build_article,
    extract,
    learn_static_noise,
    parse_document,
)
from newscrawl.extraction.stages import (
    STAGE_ORDER,
    STAGES,
    Stage,
    StageInputs,
    run_stages,
)

TITLE = "Harbour bridge reopens after repairs"
MENU = "<ul id='menu'><li><a href='/'>Home</a></li><li><a href='/world'>World</a></li></ul>"
FOOTER = "<div id='footer'>Copyright Example News. All rights reserved.</div>"


def make_page(headline: str, story: str) -> str:
    return (
        f"<html><head><title>{headline} - Example News</title></head><body>{MENU}"
        f"<div class='story'><h1>{headline}</h1><p>{story}</p>"
        "<p>Engineers replaced the cables over six months while ferries carried commuters "
        "across the water, and the city council thanked residents for their patience.</p></div>"
        f"<div class='related'><a href='/a'>More news</a> <a href='/b'>Weather</a></div>"
        f"{FOOTER}</body></html>"
    )


PAGE = make_page(TITLE, "The harbour bridge reopened on Monday morning after repairs.")
NEIGHBOURS = [
    make_page("Market hall gets a new roof", "The old market hall has a new roof at last."),
    make_page("School year starts early", "Pupils return to school a week earlier this year."),
]


@pytest.fixture(name="template")
def fixture_template() -> SiteTemplate:
    return learn_static_noise(NEIGHBOURS)


def record_calls(calls: list[str]) -> tuple[Stage, ...]:
    """The declared stages, each noting its name in `calls` before it runs."""

    def recorded(stage: Stage) -> Stage:
        def run(document: Document, inputs: StageInputs) -> None:
            calls.append(stage.name)
            stage.run(document, inputs)

        return dataclasses.replace(stage, run=run)

    return tuple(recorded(stage) for stage in STAGES)


def test_stages_are_declared_in_chain_order_with_config_flags() -> None:
    assert STAGE_ORDER == ("static_noise", "dynamic_noise", "title_relevance")
    flags = {field.name: field.type for field in dataclasses.fields(ExtractionConfig)}
    for stage in STAGES:
        assert flags[stage.flag] in (bool, "bool")


def test_stages_run_in_declared_order(template: SiteTemplate) -> None:
    calls: list[str] = []
    document = parse_document(PAGE)
    results = run_stages(
        document,
        template=template,
        title=TITLE,
        config=ExtractionConfig(),
        stages=record_calls(calls),
    )
    assert calls == list(STAGE_ORDER)
    assert [result.name for result in results] == list(STAGE_ORDER)
    assert all(result.applied and result.error is None for result in results)
    assert document.static_applied and document.dynamic_applied and document.relevance_applied


@pytest.mark.parametrize("stage", STAGES, ids=STAGE_ORDER)
def test_disabled_flag_skips_its_stage(stage: Stage, template: SiteTemplate) -> None:
    calls: list[str] = []
    switch_off: dict[str, Any] = {stage.flag: False}
    config = dataclasses.replace(ExtractionConfig(), **switch_off)
    results = run_stages(
        parse_document(PAGE),
        template=template,
        title=TITLE,
        config=config,
        stages=record_calls(calls),
    )
    expected = [name for name in STAGE_ORDER if name != stage.name]
    assert calls == expected
    assert [result.name for result in results] == expected


def test_only_runs_the_listed_stages_in_declared_order(template: SiteTemplate) -> None:
    calls: list[str] = []
    results = run_stages(
        parse_document(PAGE),
        template=template,
        title=TITLE,
        config=ExtractionConfig(),
        only=("title_relevance", "static_noise"),
        stages=record_calls(calls),
    )
    assert calls == ["static_noise", "title_relevance"]
    assert [result.name for result in results] == calls


def fail_dynamic_noise() -> tuple[Stage, ...]:
    def explode(document: Document, inputs: StageInputs) -> None:
        raise ValueError("dynamic noise exploded")

    return tuple(
        dataclasses.replace(stage, run=explode) if stage.name == "dynamic_noise" else stage
        for stage in STAGES
    )


def test_failing_stage_is_reported_and_the_others_still_run(template: SiteTemplate) -> None:
    document = parse_document(PAGE)
    results = run_stages(
        document,
        template=template,
        title=TITLE,
        config=ExtractionConfig(),
        stages=fail_dynamic_noise(),
    )
    assert [(result.name, result.applied) for result in results] == [
        ("static_noise", True),
        ("dynamic_noise", False),
        ("title_relevance", True),
    ]
    error = results[1].error
    assert error is not None and "ValueError: dynamic noise exploded" in error
    assert document.static_applied and document.relevance_applied
    article = build_article(document, title=TITLE, config=ExtractionConfig())
    assert "harbour bridge reopened" in article.text


def test_raise_errors_lets_the_stage_exception_through(template: SiteTemplate) -> None:
    with pytest.raises(ValueError, match="exploded"):
        run_stages(
            parse_document(PAGE),
            template=template,
            title=TITLE,
            config=ExtractionConfig(),
            raise_errors=True,
            stages=fail_dynamic_noise(),
        )


def test_static_noise_without_a_template_changes_nothing() -> None:
    document = parse_document(PAGE)
    results = run_stages(
        document, template=None, title=TITLE, config=ExtractionConfig(), only=("static_noise",)
    )
    assert [(result.name, result.applied) for result in results] == [("static_noise", True)]
    assert not document.static_applied


def test_extract_gives_the_article_of_the_declared_stages(template: SiteTemplate) -> None:
    config = ExtractionConfig()
    document = parse_document(PAGE)
    run_stages(document, template=template, title=TITLE, config=config)
    staged = build_article(document, title=TITLE, config=config)
    assert extract(PAGE, title=TITLE, template=template, config=config) == staged
    assert staged.method == "neighbours"
    assert "Copyright" not in staged.text
