"""The compiled loops read without bounds checks: inputs that would send them out of bounds raise.

Their callers never pass such inputs; these are the contracts that keep a bad call from crashing
the process instead of raising, as the Python twins do.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import lxml.html
import pytest

from newscrawl.extraction import ExtractionConfig
from newscrawl.extraction._node_walk import (
    body_text_sample,
    index_text,
    judge_candidates,
    lca_nodes,
    scan_elements,
)
from newscrawl.extraction._static_keys import node_keys, page_keys
from newscrawl.extraction.document import (
    BLOCK_TAGS,
    SKIPPED_TAGS,
    Document,
    TextPiece,
)
from newscrawl.extraction.static_noise import _URL_NAMES

LINKS = lxml.html.fromstring("<div><a href=x>one</a><a href=y>two</a></div>")


def test_lca_nodes_checks_the_start_node_and_the_parent_list() -> None:
    elements = list(LINKS.iter())
    assert lca_nodes(elements, [-1, 0, 0], 0) == [(0, 0)]
    for first in (3, 1_000_000, -1):
        with pytest.raises(IndexError):
            lca_nodes(elements, [-1, 0, 0], first)
    with pytest.raises(ValueError):
        lca_nodes(elements, [-1], 0)
    with pytest.raises(ValueError):
        lca_nodes(elements, [-1, 0, 7], 0)
    with pytest.raises(TypeError):
        lca_nodes([None, None, None], [-1, 0, 0], 0)


def test_judge_candidates_checks_its_ranges() -> None:
    pieces = [SimpleNamespace(text="x" * 10, in_link=False)] * 2
    config = ExtractionConfig()
    alpha, beta = config.dynamic_alpha, config.dynamic_beta
    assert judge_candidates(pieces, [(0, 2)], set(), True, alpha, beta) == [True]
    for bad in [(0, 5_000_000), (-1, 1), (2, 1)]:
        with pytest.raises(IndexError):
            judge_candidates(pieces, [bad], set(), True, alpha, beta)


@pytest.mark.parametrize(
    ("call", "arguments"),
    [
        (node_keys, ([TextPiece("x", None, False, 0)], True, _URL_NAMES, str)),
        (node_keys, ([SimpleNamespace(text="x", element=None)], True, _URL_NAMES, str)),
        (page_keys, (None, SKIPPED_TAGS, True, _URL_NAMES, str)),
        (scan_elements, (None, (), (), ())),
        (body_text_sample, (None, frozenset(), 10)),
    ],
)
def test_a_missing_element_raises_type_error(call: Any, arguments: tuple[Any, ...]) -> None:
    with pytest.raises(TypeError):
        call(*arguments)


def test_index_text_refuses_a_document_without_a_tree() -> None:
    document = Document(tree=None, url=None, pieces=[], segments=[], piece_range={})  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        index_text(document, SKIPPED_TAGS, BLOCK_TAGS)
