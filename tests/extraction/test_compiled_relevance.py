"""The compiled relevance loops (`_relevance`) pick the blocks the Python loops pick."""

from __future__ import annotations

import random

import lxml.etree
import lxml.html
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newscrawl.extraction import ExtractionConfig, learn_static_noise, relevance
from newscrawl.extraction.document import Document, _index_text, parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.relevance import _relevant_blocks, title_keyword_set
from newscrawl.extraction.static_noise import remove_static_noise
from newscrawl.extraction.word_tokens import count_segment_words, count_words
from tests.extraction.compiled_twins import needs_compiled_loops

from .fixtures.neighbour_sites import generate_site
from .test_properties import PROPERTY_SETTINGS, html_pages

pytestmark = needs_compiled_loops

CONFIG = ExtractionConfig()
# Low thresholds make headlines and the reserve fallback common on small pages.
LOOSE = ExtractionConfig(title_similarity=0.05, paragraph_possibility=1e9)


def both_answers(
    document: Document, title: str, config: ExtractionConfig
) -> tuple[tuple[list[int], list[int]], tuple[list[int], list[int]]]:
    """(compiled, Python) answers of the block loops for one page and title."""
    from newscrawl.extraction._relevance import relevant_blocks

    keywords = title_keyword_set(document, title, config)
    counts = count_segment_words(document, keywords)
    arguments = (
        document,
        counts,
        keywords,
        config.cap_key_number,
        config.title_similarity,
        config.paragraph_possibility,
        relevance.PARAGRAPH_TAGS,
        count_words,
    )
    return relevant_blocks(*arguments), _relevant_blocks(*arguments)


def assert_same_blocks(document: Document, title: str, config: ExtractionConfig) -> None:
    compiled, python = both_answers(document, title, config)
    assert compiled == python


@pytest.mark.parametrize("layout", ["classic", "divs"])
@pytest.mark.parametrize("seed", [2, 11, 29])
@pytest.mark.parametrize("config", [CONFIG, LOOSE, ExtractionConfig.paper()])
def test_compiled_loops_equal_the_python_loops_on_generated_sites(
    layout: str, seed: int, config: ExtractionConfig
) -> None:
    pages = generate_site(seed, pages=6, layout=layout)
    template = learn_static_noise([page.html for page in pages[1:]])
    for page in pages[:3]:
        for with_template in (None, template):
            document = parse_document(page.html)
            if with_template is not None:
                remove_static_noise(document, with_template, config)
            remove_dynamic_noise(document, config)
            assert document.segments
            for title in (page.title, page.title.split()[0], "words found nowhere"):
                assert_same_blocks(document, title, config)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_loops_equal_the_python_loops_with_random_removals(seed: int) -> None:
    # Blocks that lost some, all or none of their pieces, in every mix.
    rng = random.Random(seed)
    page = generate_site(seed, pages=1, layout="divs" if seed % 2 else "classic")[0]
    document = parse_document(page.html)
    pieces = len(document.pieces)
    document.removed_pieces = {i for i in range(pieces) if rng.random() < 0.3}
    document.removed_pieces |= {-1, pieces, pieces + 5}  # not piece indices: ignored by both
    for config in (CONFIG, LOOSE):
        assert_same_blocks(document, page.title, config)
    # Keys equal to a piece index count as it, in any container `in` works on.
    odd: set[object] = {np.int64(1), True, 3.0, "4"}
    document.removed_pieces = odd  # type: ignore[assignment]
    assert_same_blocks(document, page.title, CONFIG)
    document.removed_pieces = frozenset(range(0, pieces, 2))  # type: ignore[assignment]
    assert_same_blocks(document, page.title, CONFIG)


@PROPERTY_SETTINGS
@given(html_pages, st.sampled_from(["story river bridge", "the a", "council", "x y z"]))
def test_compiled_loops_equal_the_python_loops_on_generated_pages(html: str, title: str) -> None:
    document = parse_document(html)
    remove_dynamic_noise(document, CONFIG)
    if not title_keyword_set(document, title, CONFIG):
        return
    assert_same_blocks(document, title, CONFIG)
    assert_same_blocks(document, title, LOOSE)


def test_namespaced_and_nested_blocks_group_alike() -> None:
    # Paragraph tags by their parents, grandparents shared, namespaced names never paragraphs.
    html = (
        "<html><body><div><h1>river bridge council</h1>"
        "<div><p>river bridge one</p><p>river council two</p></div>"
        "<div><span>river alone</span> <x:p>namespaced river bridge</x:p></div>"
        "<ul><li><a href=/a>river link</a></li><li><a href=/b>bridge link</a></li></ul>"
        "</div><p>bridge at the top</p></body></html>"
    )
    document = parse_document(html)
    namespaced = lxml.etree.SubElement(document.body, "{urn:x}p")
    namespaced.text = "river bridge council in a namespace"
    document = Document(tree=document.tree, url=None, pieces=[], segments=[], piece_range={})
    _index_text(document)
    compiled, python = both_answers(document, "River bridge council", CONFIG)
    assert compiled == python
    assert python == ([0], [1, 2, 4, 5])  # the headline, then the group under one grandparent
    compiled, python = both_answers(document, "River bridge council", LOOSE)
    assert compiled == python


def test_malformed_input_is_refused_not_read_out_of_bounds() -> None:
    from newscrawl.extraction._relevance import relevant_blocks

    document = parse_document("<p>river bridge</p><p>more river</p>")
    keywords = frozenset({"river"})
    counts = count_segment_words(document, keywords)
    arguments = (True, 0.99, 0.0, relevance.PARAGRAPH_TAGS, count_words)  # no headlines
    with pytest.raises(ValueError):
        relevant_blocks(document, counts[:, :1], keywords, *arguments)
    document.segments[1].last_piece = len(document.pieces) + 3
    with pytest.raises(IndexError):
        relevant_blocks(document, counts, keywords, *arguments)
    document = parse_document("<p>river bridge</p>")
    document.segments[0].node = len(document.node_parents)
    with pytest.raises(IndexError):
        relevant_blocks(document, count_segment_words(document, keywords), keywords, *arguments)
    # A parent (or grandparent) index past the walk's arrays.
    for broken in (10**6, 10**11, -7):
        document = parse_document("<div><div><p>river bridge</p></div></div>")
        node = document.segments[0].node
        document.node_parents[document.node_parents[node]] = broken
        with pytest.raises(IndexError):
            relevant_blocks(document, count_segment_words(document, keywords), keywords, *arguments)
    # A word counter that answers in the wrong shape: both refuse it.
    partial = parse_document("<p>river <b>bridge</b> more</p>")
    partial.removed_pieces = {1}  # one of the block's three pieces: its words are recounted
    counts = count_segment_words(partial, keywords)
    for shape in ((2, 0), (1, 1), (3, 1)):

        def wrong(texts: list[str], words: object, shape: tuple[int, int] = shape) -> np.ndarray:
            return np.zeros(shape, dtype=np.int64)

        for find in (relevant_blocks, _relevant_blocks):
            with pytest.raises(ValueError):
                find(partial, counts, keywords, True, 0.99, 0.0, relevance.PARAGRAPH_TAGS, wrong)
    with pytest.raises(ZeroDivisionError):
        _relevant_blocks(
            parse_document("<p>x</p>"),
            count_segment_words(parse_document("<p>x</p>"), frozenset()),
            frozenset(),
            *arguments,
        )
    with pytest.raises(ZeroDivisionError):
        relevant_blocks(
            parse_document("<p>x</p>"),
            count_segment_words(parse_document("<p>x</p>"), frozenset()),
            frozenset(),
            *arguments,
        )


def test_the_first_of_equally_good_groups_wins() -> None:
    # Two groups (one per grandparent) with the same possibility: the first in page order wins.
    html = (
        "<html><body><div id=a><div><p>river one</p></div></div>"
        "<div id=b><div><p>river two</p></div></div></body></html>"
    )
    compiled, python = both_answers(parse_document(html), "river", CONFIG)
    assert compiled == python == ([], [0])


def test_a_missing_element_is_refused() -> None:
    from newscrawl.extraction._relevance import relevant_blocks

    document = parse_document("<div><p>river bridge</p><p>more river</p></div>")
    keywords = frozenset({"river"})
    counts = count_segment_words(document, keywords)
    document.node_elements[document.segments[0].node] = None  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        relevant_blocks(
            document, counts, keywords, True, 0.99, 0.0, relevance.PARAGRAPH_TAGS, count_words
        )
