"""The runner on a tiny generated dataset: leave-one-out, single mode, peers, outputs, reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from newscrawl.evaluation.dataset import read_dataset
from newscrawl.evaluation.errors import PeerUnavailableError
from newscrawl.evaluation.peers import PeerExtractor, html_to_text, load_peers
from newscrawl.evaluation.report import build_json_report, format_text_report
from newscrawl.evaluation.runner import (
    MAIN_LABEL,
    EvaluationRunner,
    _count_page_keys,
    _sum_page_counts,
    build_ablation_configs,
    summarise_times,
)
from newscrawl.extraction import ExtractionConfig, extract, learn_static_noise
from tests.evaluation.generated_dataset import write_dataset


def test_neighbour_mode_learns_one_template_per_left_out_page(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path))
    result = EvaluationRunner(mode="neighbours", progress=False).run([dataset])
    assert result.labels() == [MAIN_LABEL]
    assert len(result.results[MAIN_LABEL]) == 6
    # Each of the 6 pages is extracted with a template learned from its 2 neighbours.
    assert len(result.learn_milliseconds) == 6
    assert result.overall().pages == 6
    assert result.overall().f1 > 0.6  # loose: the exact figure is the engine tests' business
    assert result.errors() == 0


def test_leave_one_out_templates_are_those_learned_from_the_neighbours(tmp_path: Path) -> None:
    # The runner keys each page once and sums its neighbours' keys, instead of learning every
    # leave-one-out template from scratch: the templates must not change.
    dataset = read_dataset(write_dataset(tmp_path))
    groups = dataset.groups_of_pages("cluster")
    config = ExtractionConfig()
    for page in dataset.pages:
        neighbours = [p.read_html() for p in groups[page.id] if p.id != page.id]
        summed = _sum_page_counts([_count_page_keys(html, config) for html in neighbours])
        assert summed == learn_static_noise(neighbours, config)
        assert summed is not None and summed.page_count == 2 and summed.counts
    result = EvaluationRunner(mode="neighbours", progress=False).run([dataset])
    for page_result in result.results[MAIN_LABEL]:
        page = page_result.page
        neighbours = [p.read_html() for p in groups[page.id] if p.id != page.id]
        template = learn_static_noise(neighbours, config)
        html = page.read_html()
        assert page_result.text == extract(
            html, url=page.url, title=page.title_hint, template=template
        ).text


def test_ablation_configs_share_the_default_template(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path))
    configs = build_ablation_configs()
    assert list(configs) == [
        "default", "no_static_noise", "no_dynamic_noise", "no_title_relevance", "paper",
    ]
    assert configs["no_dynamic_noise"].use_dynamic_noise is False
    assert configs["paper"] == ExtractionConfig.paper()
    result = EvaluationRunner(mode="neighbours", configs=configs, progress=False).run([dataset])
    assert result.labels() == [
        MAIN_LABEL, "ablation:no_static_noise", "ablation:no_dynamic_noise",
        "ablation:no_title_relevance", "ablation:paper",
    ]
    # One template for the four default variants and one for the paper's, per page.
    assert len(result.learn_milliseconds) == 12


def test_single_mode_learns_nothing(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path))
    result = EvaluationRunner(mode="single", progress=False).run([dataset])
    assert result.learn_milliseconds == []
    assert len(result.parse_milliseconds) == 6
    assert result.overall().pages == 6
    assert all(r.text for r in result.results[MAIN_LABEL])


def test_scores_do_not_need_the_parse_yardstick(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path))
    timed = EvaluationRunner(mode="single", progress=False).run([dataset])
    untimed = EvaluationRunner(mode="single", progress=False, time_parsing=False).run([dataset])
    assert untimed.parse_milliseconds == []
    assert [r.text for r in untimed.results[MAIN_LABEL]] == [
        r.text for r in timed.results[MAIN_LABEL]
    ]


def test_limit_and_outputs(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path / "data"))
    outputs = tmp_path / "out"
    result = EvaluationRunner(
        mode="neighbours", limit=2, outputs_dir=outputs, progress=False
    ).run([dataset])
    assert result.overall().pages == 2
    written = sorted(p.name for p in (outputs / "tiny").iterdir())
    assert written == ["valley-times-harbour.txt", "valley-times-library.txt"]
    text = (outputs / "tiny" / "valley-times-harbour.txt").read_text(encoding="utf-8")
    assert "three piers" in text


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="mode"):
        EvaluationRunner(mode="both")


def test_reports_carry_sites_datasets_peers_and_ablation(tmp_path: Path) -> None:
    pytest.importorskip("trafilatura")
    pytest.importorskip("readability")
    dataset = read_dataset(write_dataset(tmp_path))
    result = EvaluationRunner(
        mode="neighbours",
        configs=build_ablation_configs(),
        peers=load_peers(["trafilatura", "readability"]),
        progress=False,
    ).run([dataset])
    document = build_json_report(result)
    assert set(document["overall"]) == {"precision", "recall", "f1", "pages"}
    assert document["overall"]["pages"] == 6
    assert set(document["datasets"]["tiny"]["sites"]) == {"valley-times", "river-post"}
    assert set(document["peers"]) == {"trafilatura", "readability"}
    assert document["peers"]["trafilatura"]["overall"]["pages"] == 6
    assert document["peers"]["trafilatura"]["version"]
    assert set(document["ablation"]) == {
        "default", "no_static_noise", "no_dynamic_noise", "no_title_relevance", "paper",
    }
    assert document["timing_ms"]["count"] == 6
    assert document["template_learning_ms"]["count"] == 12
    assert document["lxml_parse_ms"]["count"] == 6
    text = format_text_report(result)
    for expected in ["valley-times", "river-post", "overall", "F1 trafilatura", "paper",
                     "median ms/page", "template learning", "lxml parse alone"]:
        assert expected in text


def test_unknown_peer_is_a_clear_error() -> None:
    with pytest.raises(PeerUnavailableError, match="unknown peer"):
        load_peers(["goose"])


def test_html_to_text_separates_blocks() -> None:
    assert html_to_text("<div><p>One <b>two</b></p><p>three</p>four<br>five</div>") == (
        "One two\n\nthree\n\nfour\n\nfive"
    )
    assert html_to_text("  ") == ""


def test_summarise_times() -> None:
    assert summarise_times([]) == {"median": 0.0, "p95": 0.0, "count": 0}
    times = summarise_times([float(n) for n in range(1, 21)])
    assert times == {"median": 10.5, "p95": 19.0, "count": 20}


def test_a_failing_extractor_scores_zero_and_is_counted(tmp_path: Path) -> None:
    def explode(html: bytes, url: str | None, title: str | None) -> str:
        raise RuntimeError("peer broke")

    dataset = read_dataset(write_dataset(tmp_path))
    result = EvaluationRunner(
        mode="single", peers=[PeerExtractor("broken", explode)], progress=False
    ).run([dataset])
    assert result.errors("broken") == 6
    assert result.overall("broken").f1 == 0.0
    assert result.overall().f1 > 0.0


def _isolate_first_page(folder: Path) -> str:
    """Give the first page of a generated dataset a cluster of its own; return its id."""
    index = folder / "index.jsonl"
    lines = index.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["cluster"] = "alone"
    index.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    return str(first["id"])


@pytest.mark.parametrize("mode", ["single", "neighbours"])
def test_grouped_only_scores_the_pages_with_neighbours_in_both_modes(
    tmp_path: Path, mode: str
) -> None:
    folder = write_dataset(tmp_path)
    alone = _isolate_first_page(folder)
    dataset = read_dataset(folder)
    every = EvaluationRunner(mode=mode, progress=False).run([dataset])
    grouped = EvaluationRunner(mode=mode, progress=False, grouped_only=True).run([dataset])
    assert [r.page.id for r in every.results[MAIN_LABEL]] == [p.id for p in dataset.pages]
    assert [r.page.id for r in grouped.results[MAIN_LABEL]] == [
        p.id for p in dataset.pages if p.id != alone
    ]


def test_grouped_only_follows_the_grouping(tmp_path: Path) -> None:
    # By site the isolated page still has its site's other pages as neighbours.
    folder = write_dataset(tmp_path)
    _isolate_first_page(folder)
    dataset = read_dataset(folder)
    result = EvaluationRunner(
        mode="neighbours", progress=False, grouped_only=True, group_by="site"
    ).run([dataset])
    assert len(result.results[MAIN_LABEL]) == len(dataset.pages)
