"""Run extractors over datasets in neighbour (leave-one-out) or single-page mode and score them."""

from __future__ import annotations

import contextlib
import logging
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

import lxml.etree
import lxml.html

from newscrawl.evaluation.dataset import Dataset, DatasetPage
from newscrawl.evaluation.metric import Score, average_scores, score_bag_of_words
from newscrawl.evaluation.peers import PeerExtractor
from newscrawl.extraction import ExtractionConfig, SiteTemplate, extract, learn_static_noise
from newscrawl.extraction.block_scorer import BlockModel

logger = logging.getLogger(__name__)

MAIN_LABEL = "newscrawl"
MODES = ("neighbours", "single")
GROUPINGS = ("cluster", "site")
# A page below this recall lost a good part of its article: reported as a share of pages.
LOW_RECALL = 0.7
# Site folds per evaluated dataset in out-of-sample runs (see `out_of_sample`).
DEFAULT_FOLDS = 1
_Key = TypeVar("_Key")


def build_ablation_configs(base: ExtractionConfig | None = None) -> dict[str, ExtractionConfig]:
    """Return the ablation table's configurations: the default, each stage off, the paper."""
    default = base or ExtractionConfig()
    return {
        "default": default,
        "no_static_noise": replace(default, use_static_noise=False),
        "no_dynamic_noise": replace(default, use_dynamic_noise=False),
        "no_title_relevance": replace(default, use_title_relevance=False),
        "paper": ExtractionConfig.paper(),
    }


class ModelChooser(Protocol):
    """Chooses the block model of each page of a dataset (see `out_of_sample`)."""

    def models_for(self, dataset: Dataset) -> dict[str, BlockModel]:
        """Each page id with the model to extract it with."""
        ...


@dataclass(frozen=True)
class PageResult:
    """One extractor's output on one page, with its score and extraction time."""

    page: DatasetPage
    text: str
    score: Score
    milliseconds: float
    error: str | None = None


@dataclass
class EvaluationResult:
    """Every extractor's page results from one run, plus template learning times."""

    mode: str
    config_version: str
    results: dict[str, list[PageResult]] = field(default_factory=dict)
    learn_milliseconds: list[float] = field(default_factory=list)
    # lxml parsing each page alone: the yardstick for the "<= 4x lxml" speed target.
    parse_milliseconds: list[float] = field(default_factory=list)
    peer_versions: dict[str, str] = field(default_factory=dict)
    # How the block models were chosen: "packaged", or a description of the out-of-sample folds.
    models: str = "packaged"

    def labels(self) -> list[str]:
        """Extractor labels in the order they were run."""
        return list(self.results)

    def overall(self, label: str = MAIN_LABEL) -> Score:
        """Macro average over every page of every dataset."""
        return average_scores(result.score for result in self.results.get(label, []))

    def by_dataset(self, label: str = MAIN_LABEL) -> dict[str, Score]:
        """Macro average per dataset, in the order the datasets were run."""
        return _group_scores(self.results.get(label, []), lambda page: page.dataset)

    def by_site(self, label: str = MAIN_LABEL) -> dict[tuple[str, str], Score]:
        """Macro average per (dataset, site)."""
        return _group_scores(self.results.get(label, []), lambda page: (page.dataset, page.site))

    def low_recall_share(self, label: str = MAIN_LABEL) -> dict[str, float]:
        """Per dataset, the share of pages whose recall is below LOW_RECALL."""
        groups: dict[str, list[bool]] = {}
        for result in self.results.get(label, []):
            groups.setdefault(result.page.dataset, []).append(result.score.recall < LOW_RECALL)
        return {name: sum(flags) / len(flags) for name, flags in groups.items()}

    def timing(self, label: str = MAIN_LABEL) -> dict[str, float]:
        """Median and 95th percentile of the per-page extraction time, in milliseconds."""
        return summarise_times([result.milliseconds for result in self.results.get(label, [])])

    def errors(self, label: str = MAIN_LABEL) -> int:
        """How many pages the extractor failed on (they score zero)."""
        return sum(1 for result in self.results.get(label, []) if result.error is not None)


def summarise_times(values: Sequence[float]) -> dict[str, float]:
    """Median and 95th percentile (nearest rank) of a list of times."""
    if not values:
        return {"median": 0.0, "p95": 0.0, "count": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {
        "median": round(statistics.median(ordered), 3),
        "p95": round(p95, 3),
        "count": len(ordered),
    }


def _group_scores(
    results: Iterable[PageResult], key: Callable[[DatasetPage], _Key]
) -> dict[_Key, Score]:
    groups: dict[_Key, list[Score]] = {}
    for result in results:
        groups.setdefault(key(result.page), []).append(result.score)
    return {name: average_scores(scores) for name, scores in groups.items()}


@dataclass(frozen=True)
class _PageCounts:
    """One page's static-noise keys as a one-page template, or None when keying it failed."""

    template: SiteTemplate | None
    milliseconds: float


def _count_page_keys(html: bytes, config: ExtractionConfig) -> _PageCounts:
    """Key one page: `learn_static_noise` counts each page's keys on its own, then sums them."""
    started = time.perf_counter()
    template: SiteTemplate | None
    try:
        template = learn_static_noise([html], config)
    except Exception:  # noqa: BLE001 - one bad page must not stop the benchmark
        logger.exception("learning a template failed for config %s", config.version)
        template = None
    return _PageCounts(template, (time.perf_counter() - started) * 1000)


def _sum_page_counts(pages: Sequence[_PageCounts]) -> SiteTemplate | None:
    """The template `learn_static_noise` learns from these pages; None when one failed."""
    counts: Counter[int] = Counter()
    for page in pages:
        if page.template is None:
            return None
        counts.update(page.template.counts)
    return SiteTemplate(page_count=len(pages), counts=dict(counts))


def _learning_key(config: ExtractionConfig) -> ExtractionConfig:
    """Configurations that differ only in stage switches share one learned template."""
    return replace(config, use_static_noise=True, use_dynamic_noise=True, use_title_relevance=True)


class EvaluationRunner:
    """Extract every page with our configurations and the peers, and score each against gold."""

    def __init__(
        self,
        *,
        mode: str,
        configs: dict[str, ExtractionConfig] | None = None,
        peers: Sequence[PeerExtractor] = (),
        limit: int | None = None,
        outputs_dir: Path | None = None,
        progress: bool | None = None,
        models: ModelChooser | None = None,
        group_by: str = "cluster",
        time_parsing: bool = True,
        grouped_only: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if group_by not in GROUPINGS:
            raise ValueError(f"group_by must be one of {', '.join(GROUPINGS)}, not {group_by!r}")
        # None: every page uses the packaged model.
        self.models = models
        self.group_by = group_by
        # Only pages with a neighbour in their group (by `group_by`), in either mode: single and
        # neighbour runs then score the same pages, so their difference is the neighbour gain.
        self.grouped_only = grouped_only
        self.mode = mode
        # The first configuration is the one reported as "newscrawl"; the rest are ablations.
        self.configs = configs or {"default": ExtractionConfig()}
        self.peers = list(peers)
        self.limit = limit
        self.outputs_dir = outputs_dir
        self.progress = sys.stderr.isatty() if progress is None else progress
        # The lxml yardstick parses every page once more; callers that want only the scores
        # (the quality gate) skip it.
        self.time_parsing = time_parsing

    def _labels(self) -> dict[str, ExtractionConfig]:
        labelled: dict[str, ExtractionConfig] = {}
        for number, (name, config) in enumerate(self.configs.items()):
            labelled[MAIN_LABEL if number == 0 else f"ablation:{name}"] = config
        return labelled

    def run(self, datasets: Sequence[Dataset]) -> EvaluationResult:
        """Evaluate every page of the datasets (the first `limit` pages of each)."""
        labelled = self._labels()
        first_config = next(iter(labelled.values()))
        result = EvaluationResult(mode=self.mode, config_version=first_config.version)
        for label in (*labelled, *(peer.name for peer in self.peers)):
            result.results[label] = []
        result.peer_versions = {peer.name: peer.version for peer in self.peers}
        work = [(dataset, self._pages_of(dataset)[: self.limit]) for dataset in datasets]
        total = sum(len(pages) for _, pages in work)
        from tqdm import tqdm

        with tqdm(total=total, disable=not self.progress, unit="page", file=sys.stderr) as bar:
            for dataset, pages in work:
                self._run_dataset(dataset, pages, labelled, result, bar.update)
        return result

    def _pages_of(self, dataset: Dataset) -> list[DatasetPage]:
        """The dataset's pages to evaluate: all, or (grouped_only) those that have neighbours."""
        if not self.grouped_only:
            return dataset.pages
        groups = dataset.groups_of_pages(self.group_by)
        return [page for page in dataset.pages if len(groups[page.id]) > 1]

    def _run_dataset(
        self,
        dataset: Dataset,
        pages: Sequence[DatasetPage],
        labelled: dict[str, ExtractionConfig],
        result: EvaluationResult,
        advance: Callable[[int], object],
    ) -> None:
        groups = dataset.groups_of_pages(self.group_by)
        models = self.models.models_for(dataset) if self.models is not None else {}
        html_cache: dict[str, bytes] = {}

        def read_html(page: DatasetPage) -> bytes:
            # Only neighbour mode reads a page more than once (as others' neighbour).
            if self.mode != "neighbours":
                return page.read_html()
            if page.id not in html_cache:
                html_cache[page.id] = page.read_html()
            return html_cache[page.id]

        # Each page's own key counts, per learning configuration: a group of n pages learns n
        # leave-one-out templates, and each is the sum of its n - 1 neighbours' counts.
        page_counts: dict[tuple[ExtractionConfig, str], _PageCounts] = {}

        def count_page(config: ExtractionConfig, page: DatasetPage) -> _PageCounts:
            # Keyed by the learning key; learned with the first configuration that reaches it
            # (the same one for every page: labels are always visited in the same order).
            key = (_learning_key(config), page.id)
            if key not in page_counts:
                page_counts[key] = _count_page_keys(read_html(page), config)
            return page_counts[key]

        for page in pages:
            html = read_html(page)
            gold = page.read_gold()
            neighbours: list[DatasetPage] = []
            if self.mode == "neighbours":
                neighbours = [p for p in groups[page.id] if p.id != page.id]
            templates: dict[ExtractionConfig, SiteTemplate | None] = {}
            for label, config in labelled.items():
                template = self._template_for(config, neighbours, templates, result, count_page)
                if page.id in models:
                    config = replace(config, block_model=models[page.id])
                page_result = self._extract_page(page, html, gold, config, template)
                result.results[label].append(page_result)
                if label == MAIN_LABEL:
                    self._write_output(page, page_result.text)
            for peer in self.peers:
                result.results[peer.name].append(self._run_peer(peer, page, html, gold))
            if self.time_parsing:
                started = time.perf_counter()
                # An empty or unparsable page still took this long to reject.
                with contextlib.suppress(lxml.etree.ParserError, ValueError):
                    lxml.html.document_fromstring(html)
                result.parse_milliseconds.append((time.perf_counter() - started) * 1000)
            advance(1)

    def _template_for(
        self,
        config: ExtractionConfig,
        neighbours: list[DatasetPage],
        templates: dict[ExtractionConfig, SiteTemplate | None],
        result: EvaluationResult,
        count_page: Callable[[ExtractionConfig, DatasetPage], _PageCounts],
    ) -> SiteTemplate | None:
        if not neighbours:
            return None
        key = _learning_key(config)
        if key not in templates:
            counted = [count_page(config, page) for page in neighbours]
            started = time.perf_counter()
            templates[key] = _sum_page_counts(counted)
            # Reported as learning the template from scratch takes: every neighbour's keying
            # (timed once, when first counted) plus the sum.
            summing = (time.perf_counter() - started) * 1000
            result.learn_milliseconds.append(summing + sum(c.milliseconds for c in counted))
        return templates[key]

    def _extract_page(
        self,
        page: DatasetPage,
        html: bytes,
        gold: str,
        config: ExtractionConfig,
        template: SiteTemplate | None,
    ) -> PageResult:
        started = time.perf_counter()
        error: str | None = None
        try:
            text = extract(
                html, url=page.url, title=page.title_hint, template=template, config=config
            ).text
        except Exception as exc:  # noqa: BLE001 - a failure scores zero and is counted
            logger.warning("extraction failed on %s/%s: %r", page.dataset, page.id, exc)
            text, error = "", repr(exc)
        elapsed = (time.perf_counter() - started) * 1000
        return PageResult(page, text, score_bag_of_words(text, gold), elapsed, error)

    def _run_peer(
        self, peer: PeerExtractor, page: DatasetPage, html: bytes, gold: str
    ) -> PageResult:
        started = time.perf_counter()
        error: str | None = None
        try:
            text = peer.extract_text(html, page.url, page.title_hint)
        except Exception as exc:  # noqa: BLE001 - peers fail on odd pages; that scores zero
            logger.warning("%s failed on %s/%s: %r", peer.name, page.dataset, page.id, exc)
            text, error = "", repr(exc)
        elapsed = (time.perf_counter() - started) * 1000
        return PageResult(page, text, score_bag_of_words(text, gold), elapsed, error)

    def _write_output(self, page: DatasetPage, text: str) -> None:
        if self.outputs_dir is None:
            return
        folder = self.outputs_dir / page.dataset
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{page.id}.txt").write_text(text, encoding="utf-8")
