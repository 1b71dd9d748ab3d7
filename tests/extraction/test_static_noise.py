"""Static noise: node keys, support learned from neighbours, removal of a node's own text."""

from __future__ import annotations

import dataclasses

import lxml.html

from newscrawl.extraction import (
    ExtractionConfig,
    learn_static_noise,
    parse_document,
    remove_static_noise,
)
from newscrawl.extraction.static_noise import build_node_key
from newscrawl.extraction.template import SiteTemplate

DEFAULT = ExtractionConfig()
PAPER = ExtractionConfig.paper()


def _page(story: str, menu_id: int = 1, extra: str = "") -> str:
    return (
        f'<html><body><div class="menu-{menu_id}" id="m">Sections'
        f'<a href="/home?cb={menu_id}">Home</a></div>'
        f"<div><p>{story}</p>{extra}</div><p>Copyright 2024 Example</p></body></html>"
    )


def _remaining(document) -> str:  # type: ignore[no-untyped-def]
    return " ".join(
        p.text.strip() for i, p in enumerate(document.pieces) if i not in document.removed_pieces
    )


def test_keys_collapse_digit_runs_and_cache_busters_by_default() -> None:
    a = lxml.html.fromstring('<div class="box-12" data-x="2024">Updated 10:45</div>')
    b = lxml.html.fromstring('<div class="box-7" data-x="1999">Updated 9:02</div>')
    assert build_node_key(a, "Updated 10:45", DEFAULT) == build_node_key(b, "Updated 9:02", DEFAULT)
    assert build_node_key(a, "Updated 10:45", PAPER) != build_node_key(b, "Updated 9:02", PAPER)
    link_a = lxml.html.fromstring('<a href="/x?utm=1">X</a>')
    link_b = lxml.html.fromstring('<a href="/x?utm=2#top">X</a>')
    assert build_node_key(link_a, "X", DEFAULT) == build_node_key(link_b, "X", DEFAULT)


def test_repeated_text_is_removed_but_the_article_stays() -> None:
    neighbours = [
        _page(f"Story {word} happened today.", menu_id=i) for i, word in enumerate("abcd")
    ]
    template = learn_static_noise(neighbours)
    document = parse_document(_page("The river rose overnight.", menu_id=9))
    remove_static_noise(document, template, DEFAULT)
    remaining = _remaining(document)
    assert "The river rose overnight." in remaining
    for noise in ("Sections", "Home", "Copyright"):
        assert noise not in remaining


def test_only_a_nodes_own_text_is_removed() -> None:
    # The wrapper's own text is static on every page, its child paragraph is not.
    pages = [
        f"<html><body><div>Latest <p>Story {word} is unique here.</p></div></body></html>"
        for word in ("alpha", "beta", "gamma", "delta", "epsilon")
    ]
    template = learn_static_noise(pages[1:])
    document = parse_document(pages[0])
    remove_static_noise(document, template, DEFAULT)
    assert _remaining(document) == "Story alpha is unique here."


def test_support_threshold_is_a_fraction_of_the_neighbours() -> None:
    neighbours = [
        _page(f"Story {i}.", extra="<p>Sometimes shown</p>" if i < 4 else "") for i in range(5)
    ]
    template = learn_static_noise(neighbours)
    target = _page("Target story.", extra="<p>Sometimes shown</p>")
    fraction = parse_document(target)
    remove_static_noise(fraction, template, DEFAULT)  # 4/5 = 0.8 >= 0.8
    assert "Sometimes shown" not in _remaining(fraction)
    strict = parse_document(target)
    remove_static_noise(strict, template, PAPER)  # the paper wants all N pages
    assert "Sometimes shown" in _remaining(strict)


def test_paper_config_removes_matched_subtrees_and_misses_changed_attributes() -> None:
    neighbours = [_page(f"Story {i}.", menu_id=i) for i in range(4)]
    template = learn_static_noise(neighbours, PAPER)
    document = parse_document(_page("Target story.", menu_id=7))
    remove_static_noise(document, template, PAPER)
    remaining = _remaining(document)
    assert "Copyright" not in remaining
    assert "Sections" in remaining  # its class differs on every page and is not normalised
    assert "Target story." in remaining


def test_too_few_neighbours_give_no_static_signal() -> None:
    template = learn_static_noise([_page("Only one.")])
    document = parse_document(_page("Target."))
    remove_static_noise(document, template, DEFAULT)
    assert not document.static_applied  # so build_article reports single-page mode
    assert not document.removed_pieces


def test_learning_reuses_parsed_documents() -> None:
    pages = [_page(f"Story {i}.") for i in range(3)]
    from_text = learn_static_noise(pages)
    from_documents = learn_static_noise([parse_document(p) for p in pages])
    assert from_text == from_documents


def test_an_empty_template_removes_nothing_and_never_divides_by_zero() -> None:
    config = dataclasses.replace(DEFAULT, static_min_pages=0)
    document = parse_document(_page("Story text here."))
    remove_static_noise(document, SiteTemplate(page_count=0), config)
    assert document.static_applied
    assert not document.removed_pieces
    assert set(document.static_support.values()) == {0.0}


def test_a_template_learned_from_the_page_judges_it_against_the_others_only() -> None:
    # An end-of-crawl partial template of a small group holds the page itself: its own story
    # would count as repeated on a third of the pages (a block model feature).
    page = _page("The river rose overnight.", menu_id=1)
    others = [_page("The council met on Monday.", 2), _page("A bridge was opened.", 3)]
    for config in (DEFAULT, PAPER):
        template = learn_static_noise([page, *others], config)
        judged = parse_document(page)
        remove_static_noise(judged, template, config, learned_from_page=True)
        reference = parse_document(page)
        remove_static_noise(reference, learn_static_noise(others, config), config)
        # Exactly the template learned without the page.
        assert judged.removed_pieces == reference.removed_pieces
        assert list(judged.static_support.values()) == list(reference.static_support.values())
        assert judged.static_page_count == 2
        assert "The river rose overnight." in _remaining(judged)
        assert "Copyright" not in _remaining(judged)
        counted = parse_document(page)
        remove_static_noise(counted, template, config)
        story = "The river rose overnight."
        assert [v for e, v in counted.static_support.items() if e.text == story] == [1 / 3]
        assert [v for e, v in judged.static_support.items() if e.text == story] == [0.0]


def test_a_one_page_template_learned_from_the_page_gives_no_static_signal() -> None:
    page = _page("The river rose overnight.")
    template = learn_static_noise([page], PAPER)
    counted = parse_document(page)
    remove_static_noise(counted, template, PAPER)
    assert "The river rose overnight." not in _remaining(counted)  # the whole page is "static"
    document = parse_document(page)
    remove_static_noise(document, template, PAPER, learned_from_page=True)
    assert not document.static_applied
    assert document.removed_pieces == set()
