"""The extraction stages, declared once in the order they run, and `run_stages`.

`extract()` and the crawl's `extract_page_job` (in a worker process or inline) run stages from
here, so the order and the switches live in one place. A stage's name is also its stats component
(`newscrawl/<name>/<event>`) and the name the stage pipelines list on an item.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.relevance import select_relevant_paragraphs
from newscrawl.extraction.static_noise import remove_static_noise
from newscrawl.extraction.template import SiteTemplate


@dataclass(frozen=True)
class StageInputs:
    """What a stage may read besides the Document it changes."""

    template: SiteTemplate | None
    title: str | None
    config: ExtractionConfig
    # The template was learned from this page too (see `remove_static_noise`).
    template_includes_page: bool = False


@dataclass(frozen=True)
class Stage:
    """One extraction stage: its name, the ExtractionConfig flag that switches it, its runner."""

    name: str
    # The name of a bool field of ExtractionConfig, set from NEWSCRAWL_<NAME>_ENABLED in crawls.
    flag: str
    run: Callable[[Document, StageInputs], None]

    def is_enabled(self, config: ExtractionConfig) -> bool:
        """Whether the config switches this stage on."""
        return bool(getattr(config, self.flag))


@dataclass(frozen=True)
class StageResult:
    """What one stage did: applied when `error` is None, else failed with that traceback."""

    name: str
    error: str | None = None

    @property
    def applied(self) -> bool:
        """The stage ran to the end."""
        return self.error is None


def run_static_noise(document: Document, inputs: StageInputs) -> None:
    """Drop the template's static noise; nothing to do without a template (single-page mode)."""
    if inputs.template is not None:
        remove_static_noise(
            document,
            inputs.template,
            inputs.config,
            learned_from_page=inputs.template_includes_page,
        )


def run_dynamic_noise(document: Document, inputs: StageInputs) -> None:
    """Drop link-heavy and short blocks."""
    remove_dynamic_noise(document, inputs.config)


def run_title_relevance(document: Document, inputs: StageInputs) -> None:
    """Keep the paragraph group most relevant to the title."""
    select_relevant_paragraphs(document, inputs.title, inputs.config)


STATIC_NOISE = "static_noise"
DYNAMIC_NOISE = "dynamic_noise"
TITLE_RELEVANCE = "title_relevance"

# The stages in the order they run: each works on what the ones before it left.
STAGES: tuple[Stage, ...] = (
    Stage(STATIC_NOISE, "use_static_noise", run_static_noise),
    Stage(DYNAMIC_NOISE, "use_dynamic_noise", run_dynamic_noise),
    Stage(TITLE_RELEVANCE, "use_title_relevance", run_title_relevance),
)
STAGE_ORDER: tuple[str, ...] = tuple(stage.name for stage in STAGES)



def run_stages(
    document: Document,
    *,
    template: SiteTemplate | None,
    title: str | None,
    config: ExtractionConfig,
    template_includes_page: bool = False,
    only: Collection[str] | None = None,
    raise_errors: bool = False,
    stages: Sequence[Stage] = STAGES,
) -> tuple[StageResult, ...]:
    """Run the enabled stages (those in `only`, when given) in order; one result per stage run.

    A stage that raises is reported failed and skipped: later stages and build_article cope
    with any stage having been skipped, so a crawled page that trips one stage still becomes an
    article. `raise_errors` lets the exception through instead, as `extract()` does.
    """
    inputs = StageInputs(template, title, config, template_includes_page)
    results = []
    for stage in stages:
        if not stage.is_enabled(config) or (only is not None and stage.name not in only):
            continue
        try:
            stage.run(document, inputs)
        except Exception:
            if raise_errors:
                raise
            results.append(StageResult(stage.name, traceback.format_exc()))
            continue
        results.append(StageResult(stage.name))
    return tuple(results)
