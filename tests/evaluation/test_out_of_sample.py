"""Out-of-sample evaluation: models that never saw the page's dataset family or site."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from newscrawl.evaluation.dataset import read_dataset
from newscrawl.evaluation.out_of_sample import OutOfSampleModels, assign_site_folds
from newscrawl.evaluation.runner import MAIN_LABEL, EvaluationRunner
from newscrawl.extraction import ExtractionConfig, extract
from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import MODEL_FORMAT, MODEL_FORMAT_VERSION, BlockModel
from newscrawl.training.dev_datasets import dataset_family
from newscrawl.training.samples import build_samples
from newscrawl.training.sites import site_key
from newscrawl.training.tree_fitting import fit_block_model, model_document
from tests.evaluation.generated_dataset import render_page, write_dataset

pytest.importorskip("sklearn")
REPO_ROOT = Path(__file__).resolve().parents[2]


def constant_model(log_odds: float) -> BlockModel:
    """A model of one leaf: every block gets the same probability."""
    tree = {"feature": [-1], "threshold": [0.0], "left": [0], "right": [0], "value": [0.0]}
    return BlockModel.from_dict(
        {
            "format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
            "feature_names": list(FEATURE_NAMES), "base_score": log_odds,
            "learning_rate": 1.0, "trees": [tree],
        }
    )


def write_training_sets(root: Path) -> None:
    """Tiny stand-ins for the training sets, whose sites overlap, plus an evaluation-only set."""
    for name in ("big9-2005", "big9-2009", "chaos", "fundus-dev", "dragnet"):
        write_dataset(root, name)
    # chaos shares a site with big9 under another spelling of its address.
    index = root / "chaos" / "index.jsonl"
    rows = [json.loads(line) for line in index.read_text().splitlines()]
    rows[0]["url"] = "https://www.valley-times.example/harbour"
    index.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_site_key_names_one_site_across_the_sets_spellings() -> None:
    assert site_key("big9-2005", "a", "bbc", None) == "bbc"
    assert site_key("cleanportaleval", "b", "bbc.co.uk", "http://bbc.co.uk/news/x") == "bbc"
    assert site_key("fundus-dev", "c", "BBC", "https://www.bbc.com/news/explainers") == "bbc"
    assert site_key("chaos", "d", "blogs.wsj.com", None) == "wsj"
    # Pages that name no address have no known site: each is its own.
    assert site_key("l3s-gn1", "e", "l3s-gn1", None) == "l3s-gn1/e"
    assert site_key("dragnet", "f", "dragnet", None) != site_key("dragnet", "g", "dragnet", None)


def test_site_folds_are_deterministic_and_cover_every_site() -> None:
    sites = [f"site{i}" for i in range(12)]
    folds = assign_site_folds(sites, 5)
    assert folds == assign_site_folds(list(reversed(sites)), 5)
    assert set(folds) == set(sites)
    assert sorted(set(folds.values())) == [0, 1, 2, 3, 4]


def test_training_refuses_sets_whose_licence_forbids_it(tmp_path: Path) -> None:
    write_training_sets(tmp_path)
    with pytest.raises(ValueError, match="dragnet"):
        build_samples(tmp_path, ExtractionConfig(), ["chaos", "dragnet"])


def test_training_covers_fundus_in_both_modes_and_never_reads_evaluation_sets(
    tmp_path: Path,
) -> None:
    write_training_sets(tmp_path)
    samples = build_samples(tmp_path, ExtractionConfig())
    seen = {(s.page.dataset, s.mode) for s in samples}
    assert ("fundus-dev", "neighbours") in seen
    assert ("fundus-dev", "single") in seen
    assert not any(s.page.dataset == "dragnet" for s in samples)


def test_training_is_deterministic(tmp_path: Path) -> None:
    write_training_sets(tmp_path)
    samples = build_samples(tmp_path, ExtractionConfig())
    first = model_document(fit_block_model(samples), "test")
    second = model_document(fit_block_model(build_samples(tmp_path, ExtractionConfig())), "test")
    assert json.dumps(first) == json.dumps(second)


def test_no_page_is_scored_by_a_model_that_saw_its_family_or_site(tmp_path: Path) -> None:
    write_training_sets(tmp_path)
    models = OutOfSampleModels(build_samples(tmp_path, ExtractionConfig()), folds=2)
    for name in ("big9-2009", "chaos", "fundus-dev", "dragnet"):
        dataset = read_dataset(tmp_path / name)
        chosen = models.training_indices_for(dataset)
        for page in dataset.pages:
            page_site = site_key(dataset.name, page.id, page.site, page.url)
            trained_on = [models.samples[i] for i in chosen[page.id]]
            assert trained_on, f"{name}/{page.id} has no training pages"
            assert all(s.family != dataset_family(name) for s in trained_on)
            assert all(s.site != page_site for s in trained_on)
    # chaos's valley-times page under www. is the same site as big9's: left out with it.
    big9 = read_dataset(tmp_path / "big9-2009")
    valley = next(p for p in big9.pages if p.site == "valley-times")
    trained = [models.samples[i] for i in models.training_indices_for(big9)[valley.id]]
    assert not any(s.page.url and "valley-times" in s.page.url for s in trained)


def test_runner_extracts_each_page_with_its_chosen_model(tmp_path: Path) -> None:
    dataset = read_dataset(write_dataset(tmp_path))

    class NothingIsArticle:
        def models_for(self, chosen: object) -> dict[str, BlockModel]:
            return {page.id: constant_model(-10.0) for page in dataset.pages}

    packaged = EvaluationRunner(mode="single", progress=False).run([dataset])
    # Without the fallback that keeps a page's likeliest blocks when none reaches the threshold.
    strict = {"default": ExtractionConfig(best_block_share=0.0)}
    refused = EvaluationRunner(
        mode="single", configs=strict, progress=False, models=NothingIsArticle()
    ).run([dataset])
    assert packaged.overall().f1 > 0.5
    assert all(r.text == "" for r in refused.results[MAIN_LABEL])
    assert refused.low_recall_share() == {"tiny": 1.0}


def test_extract_scores_blocks_with_the_model_in_its_config() -> None:
    html = render_page("valley-times", "Harbour reopens", ["The harbour reopened on Monday."])
    # Page furniture (the copyright line) and the likeliest-blocks fallback off: only the model.
    kept_all = extract(
        html, config=ExtractionConfig(block_model=constant_model(10.0), drop_prompt_noise=False)
    )
    kept_none = extract(
        html, config=ExtractionConfig(block_model=constant_model(-10.0), best_block_share=0.0)
    )
    assert "Copyright valley-times" in kept_all.text
    assert kept_none.text == ""
    # The model is not a threshold: configurations differing only in it are equal.
    assert ExtractionConfig(block_model=constant_model(1.0)) == ExtractionConfig()


def test_site_groups_give_neighbours_but_keep_pages_of_unknown_site_alone(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path)
    index = folder / "index.jsonl"
    rows = [json.loads(line) for line in index.read_text().splitlines()]
    for row in rows:
        row["cluster"] = row["id"]
    rows[0]["site"] = "tiny"  # the dataset's name: the page names no address
    index.write_text("".join(json.dumps(row) + "\n" for row in rows))
    groups = read_dataset(folder).groups_of_pages("site")
    assert [p.id for p in groups[rows[0]["id"]]] == [rows[0]["id"]]
    assert len(groups[rows[1]["id"]]) == 2
    assert all(len(group) == 1 for group in read_dataset(folder).groups_of_pages().values())


def test_evaluate_out_of_sample_reports_the_models_and_low_recall(tmp_path: Path) -> None:
    write_training_sets(tmp_path)
    report = tmp_path / "report.json"
    completed = subprocess.run(
        [sys.executable, "-m", "newscrawl", "evaluate", str(tmp_path / "dragnet"),
         "--mode", "neighbours", "--neighbours-by", "site", "--out-of-sample", "--folds", "2",
         "--no-ablation", "--json", str(report)],
        capture_output=True, text=True, cwd=REPO_ROOT, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "models: out-of-sample" in completed.stdout
    assert "R < 0.7" in completed.stdout
    document = json.loads(report.read_text())
    assert document["models"].startswith("out-of-sample")
    assert 0.0 <= document["datasets"]["dragnet"]["low_recall_share"] <= 1.0
    assert np.isfinite(document["overall"]["f1"])


def test_evaluate_out_of_sample_fails_clearly_without_training_sets(tmp_path: Path) -> None:
    folder = write_dataset(tmp_path / "elsewhere", "dragnet")
    completed = subprocess.run(
        [sys.executable, "-m", "newscrawl", "evaluate", str(folder), "--out-of-sample",
         "--no-ablation"],
        capture_output=True, text=True, cwd=REPO_ROOT, check=False,
    )
    assert completed.returncode == 2
    assert "no training sets under" in completed.stderr
