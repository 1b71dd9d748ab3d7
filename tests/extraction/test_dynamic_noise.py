"""Dynamic noise: LCA candidates of anchors, the paper's filters, and the bottom-up repair."""

from __future__ import annotations

from dataclasses import replace

import lxml.etree
import lxml.html
import pytest
from hypothesis import given

from newscrawl.extraction import (
    ExtractionConfig,
    dynamic_noise,
    parse_document,
    remove_dynamic_noise,
)
from newscrawl.extraction import document as document_module
from newscrawl.extraction.document import Document
from newscrawl.extraction.dynamic_noise import (
    _find_candidates_python,
    _find_candidates_with_depth,
    find_candidates,
)
from tests.extraction.compiled_twins import needs_compiled_loops
from tests.extraction.test_properties import PROPERTY_SETTINGS, html_pages

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


# Anchors the compiled search must map like the Python one: hidden in skipped containers
# (nested, or in the head of a page without a body), href spellings, odd tags, lone anchors.
LCA_PAGES = [
    "<html><body><div id=top><a href=/1>one</a><noscript><p><a href=/n1>n1</a>"
    "<a href=/n2>n2</a></p></noscript><ul><li><a href=/2>two</a></li><li><span>"
    "<a href=/3>three</a></span></li></ul></div><svg><a href=/s>s</a><g><a href=/t>t</a></g>"
    "</svg><select><option><a href=/o>o</a></option></select>"
    "<table><tr><td><a href=/4>four</a> text</td><td><a>no href</a>"
    "<a href=/5>five</a></td></tr></table><p>Plain <a href=/6>six</a></p></body></html>",
    "<p><a href>empty</a> <a href=''>quoted</a> <a name=x>named</a> <A HREF=/up>up</A>"
    " <ns:a href=/x>pseudo</ns:a> <a data-href=/d>data</a> <a id=y href=/z>real</a></p>",
    "<html><head><title>T</title></head><body><p><a href=/only>lone</a></p></body></html>",
    "<html><body><p>no links at all</p></body></html>",
    "<p><a href=/o>out <b><a href=/i>in</a> after</b> end</a> tail</p>",
    "<div><noscript><a href=/a>a</a><a href=/b>b</a></noscript></div><div><a href=/c>c</a></div>",
    "<div>" * 60 + "<a href=/deep>deep</a>" + "</div>" * 60 + "<p><a href=/top>top</a></p>",
]


def _both_candidate_searches(html: str) -> None:
    document = parse_document(html)
    assert _find_candidates_with_depth(document) == _find_candidates_python(document)


@pytest.mark.parametrize("html", LCA_PAGES)
def test_compiled_lca_search_equals_the_python_search(html: str) -> None:
    _both_candidate_searches(html)


def test_compiled_lca_search_on_a_page_without_a_body() -> None:
    # The body is then the root, and the anchors in the (skipped) head count too.
    root = lxml.html.fromstring("<div><a href=/1>1</a><span><a href=/2>2</a></span></div>")
    tree = lxml.html.document_fromstring("<html><head><a href=/h>h</a></head></html>")
    tree.append(root)
    for page in (tree, root):
        document = Document(tree=page, url=None, pieces=[], segments=[], piece_range={})
        document_module._index_text(document)
        assert _find_candidates_with_depth(document) == _find_candidates_python(document)


@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_lca_search_equals_the_python_search_on_generated_pages(html: str) -> None:
    _both_candidate_searches(html)


def _both_judges(html: str, config: ExtractionConfig, removed_every: int) -> None:
    document = parse_document(html)
    found = _find_candidates_with_depth(document)
    if config.dynamic_bottom_up:
        found.sort(key=lambda pair: -pair[1])
    ranges = [document.piece_range[element] for element, _ in found]
    # Pieces another stage (static noise) removed before: bottom-up, they do not count.
    before = set(range(0, len(document.pieces), removed_every))
    python_removed, compiled_removed = set(before), set(before)
    arguments = (config.dynamic_bottom_up, config.dynamic_alpha, config.dynamic_beta)
    python = dynamic_noise._judge_python(document.pieces, ranges, python_removed, *arguments)
    compiled = dynamic_noise._compiled_judge(
        document.pieces, ranges, compiled_removed, *arguments
    )
    assert compiled == python
    assert compiled_removed == python_removed


JUDGE_PAGES = [
    *LCA_PAGES,
    # Whitespace only str.isspace() knows about, around link and non-link text.
    "<div><p>\u00a0 lead\u3000 text \u2028</p><ul><li><a href=/1>\u2003one\u00a0</a></li>"
    "<li><a href=/2> two \x1c</a></li></ul></div><div>" + "words " * 20 + "<a href=/3>x</a></div>",
]


@needs_compiled_loops
@pytest.mark.parametrize("html", JUDGE_PAGES)
@pytest.mark.parametrize("config", [DEFAULT, PAPER])
@pytest.mark.parametrize("removed_every", [1, 3, 1000])
def test_compiled_judging_equals_the_python_judging(
    html: str, config: ExtractionConfig, removed_every: int
) -> None:
    _both_judges(html, config, removed_every)


@needs_compiled_loops
@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_judging_equals_the_python_judging_on_generated_pages(html: str) -> None:
    for config in (DEFAULT, PAPER):
        _both_judges(html, config, 4)


def _cited_body(sources: int) -> str:
    # Paragraphs that cite their sources inline: over a fifth of the body's text is in links.
    links = " ".join(f"<a href=/s{k}>the report number {k} on it</a>" for k in range(sources))
    # The byline's link between the paragraphs makes the post itself a candidate.
    return (
        f"<div class=post><p>{ARTICLE} {links}.</p><div><a href=/ann>By Ann Lee</a></div>"
        f"<p>{ARTICLE} {links}.</p></div>"
    )


def test_a_body_citing_its_sources_in_links_is_not_dynamic_noise() -> None:
    menu = "".join(f"<li><a href=/m{k}>Section {k}</a></li>" for k in range(6))
    page = f"<html><body><div><ul>{menu}</ul>{_cited_body(3)}</div></body></html>"
    document = parse_document(page)
    remove_dynamic_noise(document, DEFAULT)
    remaining = _remaining(document)
    assert "The council met on Tuesday" in remaining
    assert "Section 3" not in remaining
    # The paper judges the wrapper on its link share, and it goes with its paragraphs.
    document = parse_document(page)
    remove_dynamic_noise(document, ExtractionConfig(dynamic_prose_chars=0))
    assert "The council met on Tuesday" not in _remaining(document)


def test_a_paragraph_mostly_of_links_is_no_prose() -> None:
    # Too much of the text is links: the block holding it is judged as the paper does.
    page = f"<html><body>{_cited_body(12)}</body></html>"
    document = parse_document(page)
    remove_dynamic_noise(document, DEFAULT)
    assert "The council met on Tuesday" not in _remaining(document)


# A short blog post whose lines carry their sources' links: more than `dynamic_beta` of its text
# is link text, and no line is long enough to count as a prose paragraph.
_SHORT_POST = (
    "<div class=entry-content>Lovely pixel art of every hero and villain by "
    "<a href=/artist>Sayon Chatterjee</a>.<br>Found via <a href=/blog>the design blog</a>, "
    "more of them here.</div>"
)


def _blog_page(body: str) -> str:
    sidebar = "".join(f"<li><a href=/c{k}>Category {k}</a></li>" for k in range(6))
    return (
        "<html><body><div class=post><h3><a href=/post>Pixel heroes and villains</a></h3>"
        f"{body}<div class=meta><a href=/comments>Comments (0)</a> "
        "<a href=/tags>Tags</a></div></div>"
        f"<ul class=sidebar>{sidebar}</ul></body></html>"
    )


def test_a_short_linked_post_in_the_named_body_is_not_dynamic_noise() -> None:
    document = parse_document(_blog_page(_SHORT_POST))
    remove_dynamic_noise(document, DEFAULT)
    remaining = _remaining(document)
    assert "Lovely pixel art of every hero" in remaining
    assert "Sayon Chatterjee" in remaining  # the body's own links stay with it
    # The wrapper around the post is judged on its own text: its links and the sidebar go.
    assert "Comments (0)" not in remaining
    assert "Category 3" not in remaining
    # Without the rule (the paper's judging), the wrapper takes the post with it.
    document = parse_document(_blog_page(_SHORT_POST))
    remove_dynamic_noise(document, replace(DEFAULT, dynamic_named_body=False))
    assert "Lovely pixel art of every hero" not in _remaining(document)


def test_no_element_holding_the_named_body_is_listed_as_dynamic_noise() -> None:
    document = parse_document(_blog_page(_SHORT_POST))
    remove_dynamic_noise(document, DEFAULT)
    body = document.tree.find_class("entry-content")[0]
    for element in document.dynamic_noise:
        assert body not in element.iter()
        assert element not in body.iter() or element is not body


def test_a_link_roundup_in_the_named_body_is_kept_but_its_link_list_is_judged() -> None:
    # The roundup's lines are the body's own text between `<br>`s; the related list is a link
    # block inside the body, judged first and on its own.
    roundup = "".join(
        f"&bull; The {k} worst signs ever seen are <a href=/s{k}>in this photo set</a>.<br>"
        for k in range(4)
    )
    links = "".join(f"<li><a href=/r{k}>Related story number {k}</a></li>" for k in range(5))
    body = f"<div class=post-body>{roundup}<ul class=related>{links}</ul></div>"
    document = parse_document(_blog_page(body))
    remove_dynamic_noise(document, DEFAULT)
    remaining = _remaining(document)
    assert "worst signs ever seen" in remaining
    assert "Related story number 2" not in remaining
    document = parse_document(_blog_page(body))
    remove_dynamic_noise(document, replace(DEFAULT, dynamic_named_body=False))
    assert "worst signs ever seen" not in _remaining(document)


def test_a_named_body_that_is_a_list_of_links_is_judged_as_any_candidate() -> None:
    links = "".join(f"<li><a href=/r{k}>Another story number {k}</a></li>" for k in range(6))
    document = parse_document(_blog_page(f"<div class=entry-content><ul>{links}</ul></div>"))
    remove_dynamic_noise(document, DEFAULT)
    assert "Another story number 3" not in _remaining(document)


def test_two_named_bodies_name_none() -> None:
    # A blog's home page names every post's body: none of them is the page's.
    page = _blog_page(_SHORT_POST + _SHORT_POST.replace("Lovely", "Quaint"))
    document = parse_document(page)
    remove_dynamic_noise(document, DEFAULT)
    assert "Lovely pixel art" not in _remaining(document)
