"""Pages whose head swallowed the body: an unclosed `<title>`, an element a head cannot hold."""

from __future__ import annotations

import lxml.etree

from newscrawl.extraction import extract, parse_document

PARAGRAPHS = "".join(
    f"<p>Paragraph {n} of the story tells what the council decided about the harbour, who "
    "spoke for it and against it, and what the vote means for the town next year.</p>"
    for n in range(8)
)


def test_an_unclosed_title_keeps_its_first_line_and_gives_back_the_page() -> None:
    page = (
        "<html><head><title>Council votes on harbour\n<script>var x = 1;</script></head>"
        f"<body><div class='story'><h1>Council votes on harbour</h1>{PARAGRAPHS}</div>"
        "</body></html>"
    )
    article = extract(page)
    assert "Paragraph 7 of the story" in article.text
    assert "Paragraph 0 of the story" in article.text
    assert parse_document(page).tree.findtext("head/title") == "Council votes on harbour"


def test_control_characters_in_a_swallowing_title_are_dropped_not_raised() -> None:
    # lxml reads control characters out of a tree but refuses to set them back.
    page = (
        "<html><head><title>Council\x1f votes\x0b on harbour<p class='lead'>The vote</p>"
        f"</head><body><div class='story'>{PARAGRAPHS}</div></body></html>"
    )
    document = parse_document(page)
    assert document.tree.findtext("head/title") == "Council  votes  on harbour"
    assert "Paragraph 7 of the story" in extract(page).text


def test_an_element_a_head_cannot_hold_starts_the_body() -> None:
    page = (
        "<html><head><title>Council votes on harbour</title><meta charset='utf-8'>"
        f"<mbox><div class='story'>{PARAGRAPHS}</div></mbox></head></html>"
    )
    tree = parse_document(page).tree
    assert [child.tag for child in tree.find("head")] == ["title", "meta"]
    assert "Paragraph 3 of the story" in extract(page).text


def test_pages_with_body_text_are_left_as_parsed() -> None:
    title = "Why &lt;b&gt; tags matter " * 60  # long, and markup-like once unescaped
    page = (
        f"<html><head><title>{title}</title><mbox>odd but harmless</mbox></head>"
        f"<body>{PARAGRAPHS}</body></html>"
    )
    tree = parse_document(page).tree
    assert tree.findtext("head/title").startswith("Why <b> tags matter")
    assert tree.find("head/mbox") is not None
    assert lxml.etree.tostring(tree.find("body")).count(b"<p>") == 8


def test_a_short_swallowing_title_is_left_alone() -> None:
    page = "<html><head><title>Headline <b>only</b> here"
    assert parse_document(page).tree.findtext("head/title") == "Headline <b>only</b> here"
