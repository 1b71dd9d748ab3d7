"""The block scorer's fast paths (caches, lookup tables, tree layout) equal their plain forms."""

from __future__ import annotations

import re
from itertools import combinations

import lxml.html
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction import parse_document
from newscrawl.extraction.block_features import (
    _PUNCTUATION,
    _SENTENCE_END,
    _UPPER_SAMPLE,
    FEATURE_NAMES,
    _character_features,
    ancestor_flags,
)
from newscrawl.extraction.block_scorer import BlockModel, load_block_model
from newscrawl.extraction.builder import _html_elements
from newscrawl.extraction.clean_html import _collapse_space
from newscrawl.extraction.document import Document
from tests.extraction.test_walk_arrays import _flags_by_climbing

_TEXT_ALPHABET = "aAzZ .,;!?)'\"。！」）、Éé\u00a0\t\n😀\uffff\ud7ff"


PAGE = (
    "<html><body><div id=wrap class='Main-Content'><nav class=menu><ul><li>A one</li>"
    "<li class='share TAGS'>B two</li></ul></nav><article><p>First words here.</p>"
    "<div class=ads><p>Buy now</p><p id=x-ads>Cheap</p></div><table><tr><td class=body>Cell"
    "</td></tr></table><p class='  '>Empty class</p></article>"
    "<footer id=foot>Footer text</footer></div></body></html>"
)


def test_ancestor_flags_on_repeated_and_mixed_case_markers_equal_a_climb() -> None:
    # Class and id are looked up apart, once per distinct value per page.
    document = parse_document(PAGE)
    nodes = [segment.node for segment in document.segments]
    expected = [_flags_by_climbing(segment.block) for segment in document.segments]
    assert ancestor_flags(document, nodes) == expected
    assert len(set(expected)) > 3


def _character_features_by_text(texts: list[str], words: list[int]) -> np.ndarray:
    """Reference: each text scanned on its own with str methods."""
    rows = []
    for text, count in zip(texts, words, strict=True):
        if not count:
            rows.append((0.0, 0.0, 0.0))
            continue
        head = text[:_UPPER_SAMPLE]
        rows.append(
            (
                float(text[-1] in _SENTENCE_END),
                sum(char in _PUNCTUATION for char in text) / count,
                sum(map(str.isupper, head)) / max(len(head), 1),
            )
        )
    return np.array(rows).T


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=_TEXT_ALPHABET, max_size=260), min_size=1, max_size=8))
def test_character_features_equal_a_per_text_scan(texts: list[str]) -> None:
    texts = [text.strip() for text in texts]
    words = [len(text.split()) for text in texts]
    out = np.zeros((len(FEATURE_NAMES), len(texts)))
    _character_features(texts, np.array(words, dtype=np.float64), out)
    rows = [FEATURE_NAMES.index(name) for name in ("ends_sentence", "punctuation_per_word")]
    rows.append(FEATURE_NAMES.index("upper_fraction"))
    assert np.array_equal(out[rows], _character_features_by_text(texts, words))


def _leaf_sums_by_row(model: BlockModel, rows: np.ndarray) -> np.ndarray:
    """Reference: each row's leaf values, one per tree in tree order, summed by numpy."""
    trees, internal = model.features.shape
    sums = []
    for row in rows:
        values = []
        for tree in range(trees):
            node = 0
            for _ in range(model.depth):
                right = row[model.features[tree, node]] > model.thresholds[tree, node]
                node = 2 * node + 1 + int(right)
            values.append(model.leaves[tree, node - internal])
        sums.append(np.array(values).sum())
    return np.array(sums)


def test_predict_proba_ignores_the_rows_memory_order() -> None:
    model = load_block_model()
    assert model is not None
    rows = np.random.default_rng(7).normal(scale=2.0, size=(60, len(FEATURE_NAMES)))
    leaf_sum = _leaf_sums_by_row(model, rows)
    expected = 1.0 / (1.0 + np.exp(-(model.base_score + model.learning_rate * leaf_sum)))
    assert model.predict_proba(rows).tobytes() == expected.tobytes()
    expected = expected.tobytes()
    # The leaf sum's rounding follows the memory order it adds in: every layout must agree.
    assert model.predict_proba(np.asfortranarray(rows)).tobytes() == expected
    wide = np.zeros((60, 2 * len(FEATURE_NAMES)))
    wide[:, ::2] = rows
    assert model.predict_proba(wide[:, ::2]).tobytes() == expected
    assert model.predict_proba(rows[:1]).tobytes() == expected[:8]


def test_model_of_single_leaves_adds_the_leaves() -> None:
    leaf = {"feature": [-1], "threshold": [0.0], "left": [-1], "right": [-1]}
    model = BlockModel.from_dict(
        {
            "format": "newscrawl-block-model",
            "format_version": 1,
            "feature_names": list(FEATURE_NAMES),
            "base_score": 0.25,
            "learning_rate": 0.5,
            "trees": [{**leaf, "value": [0.75]}, {**leaf, "value": [-2.0]}],
        }
    )
    assert model.depth == 0
    rows = np.random.default_rng(1).normal(size=(3, len(FEATURE_NAMES)))
    expected = 1.0 / (1.0 + np.exp(-(0.25 + 0.5 * (0.75 - 2.0))))
    assert np.array_equal(model.predict_proba(rows), np.full(3, expected))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u3000ab", max_size=20))
def test_collapse_space_equals_the_whitespace_regex(text: str) -> None:
    if text:
        assert _collapse_space(text) == re.sub(r"\s+", " ", text)


def _html_elements_by_scanning(
    document: Document, kept: list[int], paragraphs_by_index: dict[int, str]
) -> list[object]:
    """Reference: the nested-block check scans every piece of the block's subtree.

    Blocks inside another chosen block are then dropped, as `clean_html._drop_nested` does.
    """
    kept_set = set(kept)
    fully_kept: dict[lxml.html.HtmlElement, bool] = {}
    for segment in document.segments:
        fully_kept[segment.block] = fully_kept.get(segment.block, True) and (
            segment.index in kept_set
        )
    found: list[object] = []
    emitted: set[lxml.html.HtmlElement] = set()
    for index in kept:
        block = document.segments[index].block
        if block in emitted:
            continue
        start, end = document.piece_range.get(block, (0, 0))
        nested_ok = all(document.pieces[j].segment in kept_set for j in range(start, end))
        if block.tag not in ("body", "html", "br") and fully_kept[block] and nested_ok:
            if not any(ancestor in emitted for ancestor in block.iterancestors()):
                found.append(block)
            emitted.add(block)
        else:
            found.append(paragraphs_by_index[index])
    blocks = {id(item) for item in found if not isinstance(item, str)}
    return [
        item
        for item in found
        if isinstance(item, str)
        or not any(id(ancestor) in blocks for ancestor in item.iterancestors())  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize(
    ("html", "least"),
    [
        (
            "<html><body><div>Lead <p>One</p> middle <div>Two <p>Three</p></div> tail</div>"
            "<ul><li>Four</li><li>Five <b>bold</b></li></ul><p>Six<br>Seven</p></body></html>",
            9,
        ),
        # Blocks whose own text comes after their child blocks': taken after those children.
        (
            "<html><body><div><div><p>One</p><p>Two</p> mid</div><p>Three</p> tail</div>"
            "<section><h2>Four</h2> five</section><p>Six</p></body></html>",
            8,
        ),
    ],
)
def test_html_elements_check_nested_blocks_like_a_scan(html: str, least: int) -> None:
    document = parse_document(html)
    count = len(document.segments)
    assert count >= least
    for size in range(count + 1):
        for kept in combinations(range(count), size):
            chosen = list(kept)
            paragraphs = {i: document.segments[i].text for i in chosen}
            found, nodes = _html_elements(document, chosen, paragraphs_by_index=paragraphs)
            assert found == _html_elements_by_scanning(document, chosen, paragraphs)
            assert len(nodes) == len(found)
