"""The compiled feature table (`_block_rows.fill_feature_rows`) is the numpy table, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction import ExtractionConfig, block_features, learn_static_noise
from newscrawl.extraction.block_features import (
    _compiled_block_features,
    _python_block_features,
    compute_block_features,
)
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.relevance import select_relevant_paragraphs, select_title_keywords
from newscrawl.extraction.static_noise import remove_static_noise
from newscrawl.extraction.template import SiteTemplate
from tests.extraction.compiled_twins import needs_compiled_loops

from .fixtures.neighbour_sites import generate_site

CONFIG = ExtractionConfig()


def staged_document(
    html: str, title: str | None, template: SiteTemplate | None, config: ExtractionConfig = CONFIG
) -> Document:
    """A document annotated by the stages that run before the features, as `extract` runs them."""
    document = parse_document(html)
    if template is not None:
        remove_static_noise(document, template, config)
    if config.use_dynamic_noise:
        remove_dynamic_noise(document, config)
    if config.use_title_relevance:
        select_relevant_paragraphs(document, title, config)
    return document


def assert_same_tables(document: Document, title: str | None, config: ExtractionConfig) -> None:
    keywords = set(select_title_keywords(title, config)) if title else set()
    expected = _python_block_features(document, keywords, config)
    found = _compiled_block_features(document, keywords, config)
    assert found.shape == expected.shape
    assert found.dtype == expected.dtype
    assert found.tobytes() == expected.tobytes()


@needs_compiled_loops
@pytest.mark.parametrize("layout", ["classic", "divs"])
@pytest.mark.parametrize("seed", [1, 7, 23])
def test_compiled_table_equals_numpy_table_with_and_without_a_template(
    layout: str, seed: int
) -> None:
    pages = generate_site(seed, pages=6, layout=layout)
    template = learn_static_noise([page.html for page in pages[1:]])
    for page in pages[:3]:
        for with_template in (None, template):
            document = staged_document(page.html, page.title, with_template)
            assert document.segments
            assert_same_tables(document, page.title, CONFIG)


@needs_compiled_loops
@pytest.mark.parametrize(
    "switches",
    [
        {"use_dynamic_noise": False},
        {"use_title_relevance": False},
        {"use_dynamic_noise": False, "use_title_relevance": False},
        {"static_min_pages": 50},
    ],
)
def test_compiled_table_equals_numpy_table_with_stages_switched_off(
    switches: dict[str, object],
) -> None:
    config = ExtractionConfig(**switches)  # type: ignore[arg-type]
    pages = generate_site(5, pages=5)
    template = learn_static_noise([page.html for page in pages[1:]])
    document = staged_document(pages[0].html, pages[0].title, template, config)
    assert_same_tables(document, pages[0].title, config)


def test_the_table_fills_the_columns_its_page_implies() -> None:
    pages = generate_site(11, pages=6)
    template = learn_static_noise([page.html for page in pages[1:]])
    document = staged_document(pages[0].html, pages[0].title, template)
    table = compute_block_features(document, set(), CONFIG)
    column = block_features.FEATURE_NAMES.index
    assert table[:, column("has_template")].all()
    assert table[:, column("log_words")].max() > 2.0
    assert 0.0 < table[:, column("position")].max() < 1.0
    # Some block is mostly template and some is not: the static column tells them apart.
    assert table[:, column("static_fraction")].max() > 0.5
    assert table[:, column("static_fraction")].min() < 0.5


_PARTS = st.sampled_from(
    [
        "<p>",
        "</p>",
        "<div class='story-body'>",
        "<div id='sidebar'>",
        "</div>",
        "<ul><li><a href='/a'>",
        "</a></li><li><a href='/b'>more links here",
        "</a></li></ul>",
        "<table><tr><td>",
        "</td></tr></table>",
        "<h1>",
        "</h1>",
        "<br>",
        "<nav>",
        "</nav>",
        "<blockquote>",
        "Council approves the new river bridge. ",
        "The mayor said the vote was close, ",
        "and residents asked questions! ",
        "中文日本語の改正案。",
        "ÉTÉ À PARIS? ",
        "   ",
    ]
)


@needs_compiled_loops
@settings(max_examples=150, deadline=None)
@given(st.lists(_PARTS, min_size=1, max_size=40), st.booleans())
def test_compiled_table_equals_numpy_table_on_generated_pages(
    parts: list[str], titled: bool
) -> None:
    html = "<html><body>" + "".join(parts) + "</body></html>"
    title = "Council approves the new river bridge" if titled else None
    document = staged_document(html, title, None)
    if not document.segments:
        return
    assert_same_tables(document, title, CONFIG)


@needs_compiled_loops
def test_compiled_table_refuses_inputs_of_the_wrong_shape() -> None:
    document = staged_document("<html><body><p>One block of words.</p></body></html>", None, None)
    with pytest.raises(ValueError):
        block_features._compiled_fill_rows(
            document,
            False,
            0.5,
            np.zeros((2, len(document.pieces) + 1)),
            np.zeros((2, len(document.segments)), dtype=np.int64),
            np.zeros((4, len(document.segments)), dtype=np.int64),
            [],
            block_features.HINT_BITS,
            block_features._TAG_GROUP_OF,
            block_features._NO_GROUP,
            block_features._COLUMN,
            np.zeros((len(document.segments), len(block_features.FEATURE_NAMES))),
        )
