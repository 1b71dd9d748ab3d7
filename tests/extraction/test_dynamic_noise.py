"""Dynamic noise: LCA candidates of anchors, the paper's filters, and the bottom-up repair."""

from __future__ import annotations

from newscrawl.extraction import ExtractionConfig, parse_document, remove_dynamic_noise
from newscrawl.extraction.dynamic_noise import find_candidates

DEFAULT = ExtractionConfig()
PAPER = ExtractionConfig.paper()
ARTICLE = (
    "The council met on Tuesday to approve the budget for the coming year, "
    "after a long debate about the cost of repairing the old river bridge. "
    "Several members asked for more money for schools and libraries."
)


def _remaining(document) -> str:  # type: ignore[no-untyped-def]
    return " ".join(
        p.text.strip() for i, p in enumerate(document.pieces) if i not in document.removed_pieces
    )


def test_candidates_are_anchor_lcas_but_never_html_body_or_head() -> None:
    document = parse_document(
        "<html><body><a href=/a>A</a><ul id=menu><li><a href=/b>B</a></li>"
        "<li><a href=/c>C</a></li></ul>"
        "<a href=/d>D</a></body></html>"
    )
    tags = {(element.tag, element.get("id")) for element in find_candidates(document)}
    assert ("ul", "menu") in tags
    assert not {tag for tag, _ in tags} & {"html", "body", "head"}


def test_link_list_is_removed_and_article_with_a_link_is_kept() -> None:
    document = parse_document(
        "<html><body><ul><li><a href=/1>Most read story one</a></li>"
        "<li><a href=/2>Most read two</a>"
        f"</li></ul><div><p>{ARTICLE} <a href=/budget>Read the budget</a> and "
        f"<a href=/vote>the vote</a>.</p></div></body></html>"
    )
    remove_dynamic_noise(document, DEFAULT)
    remaining = _remaining(document)
    assert "Most read" not in remaining
    assert ARTICLE in remaining
    assert "Read the budget" in remaining


def test_bottom_up_keeps_an_article_that_shares_a_wrapper_with_the_nav() -> None:
    # As written, the wrapper is judged on its raw link share and the whole article goes.
    nav = "".join(f"<a href=/s{i}>Section number {i} of the site</a> " for i in range(12))
    html = (
        f"<html><body><div id=wrap><div id=nav>{nav}</div><div>{ARTICLE}</div>"
        "<a href=/x>x</a></div></body></html>"
    )
    repaired = parse_document(html)
    remove_dynamic_noise(repaired, DEFAULT)
    assert ARTICLE in _remaining(repaired)
    assert "Section number" not in _remaining(repaired)
    as_written = parse_document(html)
    remove_dynamic_noise(as_written, PAPER)
    assert ARTICLE not in _remaining(as_written)


def test_a_paragraph_is_never_dynamic_noise() -> None:
    document = parse_document(
        "<html><body><p>See <a href=/a>first link</a> and "
        "<a href=/b>second link</a></p></body></html>"
    )
    remove_dynamic_noise(document, DEFAULT)
    assert not document.dynamic_noise
    assert "first link" in _remaining(document)


def test_short_non_link_text_under_alpha_is_noise() -> None:
    document = parse_document(
        "<html><body><div id=box>Tags: <a href=/a>one</a> <a href=/b>two</a></div>"
        f"<div>{ARTICLE}</div></body></html>"
    )
    remove_dynamic_noise(document, DEFAULT)
    assert [e.get("id") for e in document.dynamic_noise] == ["box"]


def test_page_without_links_is_untouched() -> None:
    document = parse_document(f"<html><body><p>{ARTICLE}</p></body></html>")
    remove_dynamic_noise(document, DEFAULT)
    assert document.dynamic_applied
    assert not document.removed_pieces
