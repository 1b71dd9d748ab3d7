"""The walk's per-element arrays and the vectorised helpers built on them agree with plain lxml."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction import parse_document
from newscrawl.extraction.block_features import ancestor_flags
from newscrawl.extraction.block_hints import TAG_FLAGS, marker_flags
from newscrawl.extraction.block_scorer import load_block_model
from newscrawl.extraction.dynamic_noise import _find_candidates_with_depth

PAGE = (
    "<html><head><title>T</title><script>var x = 1;</script></head><body>"
    "<div id=wrap class='Main-Content'><nav class=menu><ul><li><a href=/a>A</a></li>"
    "<li><a href=/b>B</a></li></ul></nav>"
    "<article><h1>Headline here</h1><p>First <b>bold</b> words, <a href=/x>a link</a>.</p>"
    "<table><tr><td>Cell <span class=byline>by Ann</span></td></tr></table>"
    "<p>Second paragraph<br>after a break</p></article>"
    "<aside><p>Side text</p><svg><text>hidden</text></svg></aside></div>"
    "<footer id=foot>Footer <a href=/c>C</a></footer></body></html>"
)


def test_node_arrays_match_the_tree_and_the_piece_ranges() -> None:
    document = parse_document(PAGE)
    elements = document.node_elements
    index_of = {element: index for index, element in enumerate(elements)}
    assert elements[0] is document.tree
    for index, element in enumerate(elements):
        parent = element.getparent()
        expected = -1 if parent is None else index_of[parent]
        assert document.node_parents[index] == expected
        span = (document.node_starts[index], document.node_ends[index])
        if span[0] != span[1]:
            assert document.piece_range[element] == span
        else:
            assert element not in document.piece_range
    for segment in document.segments:
        assert elements[segment.node] is segment.block


def _flags_by_climbing(element) -> int:  # type: ignore[no-untyped-def]
    flags = 0
    while element is not None:
        flags |= TAG_FLAGS.get(element.tag, 0)
        marker = f"{element.get('class') or ''} {element.get('id') or ''}"
        if len(marker) > 1:
            flags |= marker_flags(marker)
        element = element.getparent()
    return flags


def test_ancestor_flags_equal_a_climb_to_the_root() -> None:
    document = parse_document(PAGE)
    nodes = [segment.node for segment in document.segments]
    expected = [_flags_by_climbing(segment.block) for segment in document.segments]
    assert ancestor_flags(document, nodes) == expected
    assert any(flags & 1 for flags in expected) and any(flags & 2 for flags in expected)


def _candidates_from_ancestor_lists(document) -> list:  # type: ignore[no-untyped-def,type-arg]
    """Reference: each anchor's root path as an lxml list, LCAs compared level by level."""
    anchors = [a for a in document.body.iter("a") if a.get("href") is not None]
    paths = [[*reversed(list(a.iterancestors())), a] for a in anchors]

    def shared(a: list, b: list) -> int:  # type: ignore[type-arg]
        length = 0
        for x, y in zip(a, b, strict=False):
            if x is not y:
                break
            length += 1
        return length

    found: dict = {}  # type: ignore[type-arg]
    for i, path in enumerate(paths):
        before = shared(paths[i - 1], path) if i else -1
        after = shared(path, paths[i + 1]) if i + 1 < len(paths) else -1
        common = max(before, after)
        if common > 0:
            best = path[common - 1]
            if best.tag not in ("html", "body", "head") and best in document.piece_range:
                found[best] = common - 1
    return list(found.items())


# Anchors in skipped containers (noscript, svg, select) are outside the walk but still count.
NESTED_LINKS = (
    "<html><body><div id=top><a href=/1>one</a><noscript><p><a href=/n1>n1</a>"
    "<a href=/n2>n2</a></p></noscript><ul><li><a href=/2>two</a></li><li><span>"
    "<a href=/3>three</a></span></li></ul></div><svg><a href=/s>s</a></svg>"
    "<table><tr><td><a href=/4>four</a> text</td><td><a>no href</a>"
    "<a href=/5>five</a></td></tr></table><p>Plain <a href=/6>six</a></p>"
    "<div id=last><noscript><a href=/n3>n3</a></noscript><span><a href=/7>seven</a></span></div>"
    "</body></html>"
)


def test_lca_candidates_equal_the_ancestor_list_comparison() -> None:
    for page in (PAGE, NESTED_LINKS):
        document = parse_document(page)
        assert _find_candidates_with_depth(document) == _candidates_from_ancestor_lists(document)
        assert _find_candidates_with_depth(document)


_TAGS = ["div", "ul", "li", "p", "span", "td", "noscript", "section", "nav", "select"]


@st.composite
def _random_pages(draw: st.DrawFn) -> str:
    """Random nestings of containers, links and text."""

    def node(depth: int) -> str:
        kind = draw(st.integers(min_value=0, max_value=5 if depth < 5 else 2))
        if kind == 0:
            return draw(st.sampled_from(["word ", "some longer text here ", ""]))
        if kind in (1, 2):
            href = draw(st.booleans())
            return f"<a{' href=/x' if href else ''}>link {depth}</a>"
        tag = draw(st.sampled_from(_TAGS))
        children = draw(st.integers(min_value=0, max_value=4))
        return f"<{tag}>" + "".join(node(depth + 1) for _ in range(children)) + f"</{tag}>"

    return "<html><body>" + "".join(node(0) for _ in range(4)) + "</body></html>"


@settings(max_examples=150, deadline=None)
@given(_random_pages())
def test_lca_candidates_equal_the_reference_on_random_pages(page: str) -> None:
    document = parse_document(page)
    assert _find_candidates_with_depth(document) == _candidates_from_ancestor_lists(document)


def _walk_tree_by_tree(model, row: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """Reference: one row through one padded tree at a time, in plain Python."""
    trees, internal = model.features.shape
    total = 0.0
    for tree in range(trees):
        node = 0
        for _ in range(model.depth):
            goes_right = row[model.features[tree, node]] > model.thresholds[tree, node]
            node = 2 * node + 1 + int(goes_right)
        total += model.leaves[tree, node - internal]
    return 1.0 / (1.0 + np.exp(-(model.base_score + model.learning_rate * total)))


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=2**32 - 1))
def test_packaged_model_predicts_like_a_tree_by_tree_walk(count: int, seed: int) -> None:
    model = load_block_model()
    assert model is not None
    rows = np.random.default_rng(seed).normal(scale=2.0, size=(count, model.features.max() + 1))
    expected = [_walk_tree_by_tree(model, row) for row in rows]
    assert np.allclose(model.predict_proba(rows), expected, rtol=0, atol=1e-12)
