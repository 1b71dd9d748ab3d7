"""The public contract: extract, the staged API, configurations and the packaged model."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import numpy as np
import pytest

from newscrawl.extraction import (
    Article,
    ExtractionConfig,
    build_article,
    extract,
    learn_static_noise,
    parse_document,
    remove_dynamic_noise,
    remove_static_noise,
    select_relevant_paragraphs,
)
from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import (
    MODEL_FORMAT,
    MODEL_FORMAT_VERSION,
    BlockModel,
    load_block_model,
)
from newscrawl.extraction.errors import ModelFormatError
from newscrawl.extraction.tag_sets import BLOCK_TAGS, SKIPPED_TAGS
from tests.extraction.fixtures.neighbour_sites import generate_site

PAGES = generate_site(seed=3, pages=5)


def test_extract_returns_a_complete_article() -> None:
    page = PAGES[0]
    article = extract(page.html.encode("utf-8"), url="https://example.org/news/1")
    assert isinstance(article, Article)
    assert article.title == page.title
    assert page.paragraphs[0] in article.text
    assert "<p>" in article.html and "<script" not in article.html
    assert article.language == "en"
    assert article.method == "single"
    assert article.config_version == ExtractionConfig().version


def test_staged_api_gives_the_same_article_as_extract() -> None:
    page = PAGES[1]
    template = learn_static_noise([p.html for p in PAGES if p is not page])
    config = ExtractionConfig()
    document = parse_document(page.html)
    remove_static_noise(document, template, config)
    remove_dynamic_noise(document, config)
    select_relevant_paragraphs(document, page.title, config)
    staged = build_article(document, title=page.title, config=config)
    assert staged == extract(page.html, title=page.title, template=template, config=config)
    assert staged.method == "neighbours"


@pytest.mark.parametrize(
    "switch", ["use_static_noise", "use_dynamic_noise", "use_title_relevance", "use_block_scorer"]
)
def test_every_stage_can_be_switched_off(switch: str) -> None:
    page = PAGES[2]
    template = learn_static_noise([p.html for p in PAGES if p is not page])
    config = dataclasses.replace(ExtractionConfig(), **{switch: False})
    article = extract(page.html, title=page.title, template=template, config=config)
    assert page.paragraphs[-1] in article.text


def test_build_article_copes_with_every_stage_skipped() -> None:
    page = PAGES[0]
    article = build_article(parse_document(page.html), title=None, config=ExtractionConfig())
    assert page.paragraphs[0] in article.text


def test_paper_configuration_holds_the_published_thresholds() -> None:
    paper = ExtractionConfig.paper()
    assert (paper.dynamic_alpha, paper.dynamic_beta) == (50, 0.2)
    assert paper.static_support == 1.0
    assert (paper.title_similarity, paper.paragraph_possibility) == (0.6, 100.0)
    assert paper.version == "paper-2"
    assert ExtractionConfig().version == "default-8"
    assert paper.dynamic_prose_chars == 0  # the paper judges every candidate
    with pytest.raises(dataclasses.FrozenInstanceError):
        paper.dynamic_alpha = 1  # type: ignore[misc]


def test_declared_encoding_of_bytes_is_honoured() -> None:
    html = (
        '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body>'
        "<p>Le caf\xe9 du march\xe9 a rouvert ses portes apr\xe8s trois ans de travaux "
        "et les habitants du quartier sont venus tr\xe8s nombreux pour f\xeater cela."
        "</p></body></html>"
    ).encode("iso-8859-1")
    assert "café du marché" in extract(html).text


@pytest.mark.parametrize(
    "html",
    [
        "",
        "   ",
        "<html></html>",
        "<<<>>>",
        b"\x00\xff\xfe",
        "<?xml version='1.0' encoding='utf-8'?><html><body><p>x</p></body></html>",
    ],
)
def test_degenerate_input_does_not_raise(html: str | bytes) -> None:
    article = extract(html, title="Anything")
    assert isinstance(article.text, str)


def _tiny_model(feature: int, threshold: float, left: float, right: float) -> dict:  # type: ignore[type-arg]
    return {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "feature_names": list(FEATURE_NAMES),
        "base_score": 0.0,
        "learning_rate": 1.0,
        "trees": [
            # A depth-2 tree whose left branch is a shallow leaf, to exercise the padding.
            {
                "feature": [feature, -1, 1, -1, -1],
                "threshold": [threshold, 0, 0.5, 0, 0],
                "left": [1, 0, 3, 0, 0],
                "right": [2, 0, 4, 0, 0],
                "value": [0, left, 0, right, -right],
            },
        ],
    }


def test_block_model_walks_padded_trees_like_the_original() -> None:
    model = BlockModel.from_dict(_tiny_model(0, 1.0, -2.0, 3.0))
    rows = np.zeros((3, len(FEATURE_NAMES)))
    rows[1, 0] = 2.0
    rows[2, 0], rows[2, 1] = 2.0, 1.0
    logits = np.log(model.predict_proba(rows) / (1 - model.predict_proba(rows)))
    assert np.allclose(logits, [-2.0, 3.0, -3.0])


def test_block_model_rejects_other_features_or_versions() -> None:
    data = _tiny_model(0, 1.0, -2.0, 3.0)
    with pytest.raises(ModelFormatError):
        BlockModel.from_dict({**data, "feature_names": ["x"]})
    with pytest.raises(ModelFormatError):
        BlockModel.from_dict({**data, "format_version": 99})


def test_packaged_model_loads_without_network_and_is_small() -> None:
    assert load_block_model() is not None
    data = resources.files("newscrawl.extraction").joinpath("block_model.json").read_bytes()
    assert len(data) < 5_000_000
    assert json.loads(data)["feature_names"] == list(FEATURE_NAMES)


def test_training_labels_follow_the_gold_text() -> None:
    from newscrawl.training.block_labels import label_blocks

    document = parse_document(
        "<html><body><ul><li>Home</li><li>Sport</li></ul><h1>River bridge approved</h1>"
        "<p>The council approved the bridge on Tuesday after a long and heated debate.</p>"
        "<p>Share this story</p></body></html>"
    )
    gold = (
        "River bridge approved\n\nThe council approved the bridge on Tuesday after a long "
        "and heated debate."
    )
    assert label_blocks(document, gold) == [0, 0, 1, 1, 0]


def test_article_wrapped_in_a_form_is_kept_unless_the_paper_is_followed() -> None:
    page = PAGES[3]
    html = page.html.replace('<div class="story-body">', '<form><div class="story-body">').replace(
        '<div class="sidebar">', '</form><div class="sidebar">'
    )
    assert page.paragraphs[0] in extract(html, title=page.title).text
    rules = dataclasses.replace(ExtractionConfig(), use_block_scorer=False)
    assert page.paragraphs[0] in extract(html, title=page.title, config=rules).text
    paper = dataclasses.replace(rules, keep_form_children=False)
    assert page.paragraphs[0] not in extract(html, title=page.title, config=paper).text


def test_a_block_repeated_verbatim_is_kept_once() -> None:
    page = PAGES[4]
    html = page.html.replace("<h1>", f"<h2>{page.title}</h2><h1>", 1)
    text = extract(html, title=page.title).text
    assert text.count(page.title) == 1
    keep_all = dataclasses.replace(ExtractionConfig(), drop_duplicate_blocks=False)
    assert extract(html, title=page.title, config=keep_all).text.count(page.title) == 2


def test_the_feed_title_wins_and_the_page_headline_is_the_fallback() -> None:
    html = (
        '<html><head><meta property="og:title" content="Page headline of the story"></head>'
        "<body><article><p>" + "Words of the story about the river and the bridge. " * 6
        + "</p></article></body></html>"
    )
    assert extract(html, title="Feed title of the story").title == "Feed title of the story"
    assert extract(html).title == "Page headline of the story"
    assert extract(html, title="").title == "Page headline of the story"


@pytest.mark.parametrize("fallback", ["noembed", "noframes"])
def test_fallback_content_no_browser_shows_is_not_article_text(fallback: str) -> None:
    # libxml2 reads these as raw text: the markup inside would surface as words.
    prose = " ".join(["The council approved the new harbour budget after a long debate."] * 4)
    html = (
        f"<html><body><h1>Harbour budget approved</h1><p>{prose}</p><p>{prose}</p>"
        f"<{fallback}><a href='/ad'>Sponsored offer</a> click the banner now to win"
        f" a prize today</{fallback}><p>{prose}</p></body></html>"
    )
    article = extract(html, title="Harbour budget approved")
    assert "council approved" in article.text
    assert "banner" not in article.text
    assert "href" not in article.text


def test_no_tag_is_both_skipped_and_a_block() -> None:
    # The walk opens a block only for an element it enters, but closes one for every block tag.
    assert not SKIPPED_TAGS & BLOCK_TAGS
