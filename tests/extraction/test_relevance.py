"""Han and Tokuda: title keywords, headline detection and the most relevant paragraph group."""

from __future__ import annotations

import dataclasses

import lxml.etree
import pytest

from newscrawl.extraction import ExtractionConfig, parse_document, select_relevant_paragraphs
from newscrawl.extraction.document import Document, _index_text
from newscrawl.extraction.relevance import (
    _relevant_blocks,
    select_title_keywords,
    title_keyword_set,
)
from newscrawl.extraction.word_tokens import count_segment_words, count_words

DEFAULT = ExtractionConfig()
PAPER = ExtractionConfig.paper()
STORY = [
    "The city council approved the new river bridge after a long debate on Tuesday night.",
    "Engineers said the bridge over the river would take three years to build and cost more.",
    "Residents living near the river welcomed the council decision to build the bridge.",
]
SIDEBAR = [
    "Weather forecast for the weekend shows rain across the region with strong winds.",
    "Local football club signs a new striker from a rival team before the season starts.",
]


def _page(title_tag: str = "Council approves river bridge") -> str:
    story = "".join(f"<p>{p}</p>" for p in STORY)
    sidebar = "".join(f"<li>{p}</li>" for p in SIDEBAR)
    return (
        f"<html><head><title>{title_tag}</title></head><body>"
        f"<div id=side><ul>{sidebar}</ul></div>"
        f"<div id=story><h1>Council approves river bridge</h1><div class=body>{story}</div></div>"
        "</body></html>"
    )


def _texts(document, indices) -> list[str]:  # type: ignore[no-untyped-def]
    return [document.segments[i].text for i in sorted(indices)]


def test_keywords_drop_stop_words_and_possessives() -> None:
    assert select_title_keywords("The Mayor's plan for the River", DEFAULT) == [
        "mayor",
        "plan",
        "river",
    ]


def test_longest_title_segment_hides_the_site_prefix() -> None:
    title = "BBC NEWS | Technology | Council approves river bridge"
    assert select_title_keywords(title, DEFAULT) == ["council", "approves", "river", "bridge"]
    assert "bbc" in select_title_keywords(title, PAPER)


def test_headline_and_story_paragraphs_are_selected() -> None:
    document = parse_document(_page())
    select_relevant_paragraphs(document, "Council approves river bridge", DEFAULT)
    assert _texts(document, document.title_segments) == ["Council approves river bridge"]
    assert _texts(document, document.relevant_segments) == STORY


def test_page_title_is_used_when_no_title_is_given() -> None:
    document = parse_document(_page("Site name | Council approves river bridge"))
    select_relevant_paragraphs(document, None, DEFAULT)
    assert _texts(document, document.relevant_segments) == STORY


def test_key_number_cap_stops_a_repetitive_block_posing_as_the_headline() -> None:
    spam = "<p>bridge river bridge river bridge river council</p>"
    html = _page().replace("<div id=side>", f"<div id=side>{spam}")
    capped = parse_document(html)
    select_relevant_paragraphs(capped, "Council approves river bridge", DEFAULT)
    uncapped = parse_document(html)
    select_relevant_paragraphs(
        uncapped,
        "Council approves river bridge",
        dataclasses.replace(DEFAULT, cap_key_number=False),
    )
    assert len(capped.title_segments) < len(uncapped.title_segments)


def test_unrelated_title_still_finds_the_largest_paragraph_group() -> None:
    document = parse_document(_page())
    select_relevant_paragraphs(document, "Completely different words", DEFAULT)
    assert not document.title_segments
    assert _texts(document, document.relevant_segments) == STORY


def test_empty_page_has_no_relevant_paragraphs() -> None:
    document = parse_document("")
    select_relevant_paragraphs(document, "Anything at all", DEFAULT)
    assert document.relevance_applied
    assert not document.relevant_segments


def test_block_word_counts_are_counted_once_and_shared_read_only() -> None:
    document = parse_document(_page())
    keywords = {"river", "bridge"}
    counts = count_segment_words(document, keywords)
    texts = [segment.text for segment in document.segments]
    assert counts.tolist() == count_words(texts, keywords).tolist()
    assert count_segment_words(document, frozenset(keywords)) is counts
    assert count_segment_words(document, {"council"}) is not counts
    with pytest.raises(ValueError, match="read-only"):
        counts[0, 0] = 99


def test_blocks_that_lost_pieces_are_weighed_by_what_is_left() -> None:
    story = "<p>The river bridge opened today and many people walked across it in the sun.</p>"
    padded = "<p><span>" + "lorem " * 100 + "</span> five plain words here now</p>"
    page = (
        f"<html><body><div id=a><div>{story * 2}</div></div>"
        f"<div id=b><div>{padded * 2}</div></div></body></html>"
    )

    def relevant_group(remove: str) -> set[str | None]:
        """The chosen group after removing the pieces of group b's spans, or all of group b's."""
        document = parse_document(page)
        for i, piece in enumerate(document.pieces):
            in_b = piece.element.xpath("boolean(ancestor::div[@id='b'])")
            if in_b and (remove == "all of b" or piece.element.tag == remove):
                document.removed_pieces.add(i)
        select_relevant_paragraphs(document, "Council river bridge", DEFAULT)
        return {
            document.segments[i].block.getparent().getparent().get("id")
            for i in document.relevant_segments
        }

    # The padded group wins on its word count alone, until its padding is removed...
    assert relevant_group(remove="nothing") == {"b"}
    assert relevant_group(remove="span") == {"a"}
    # ...and a block that lost every piece has no words left at all.
    assert relevant_group(remove="all of b") == {"a"}


def test_a_removed_headline_is_no_title_block() -> None:
    title = "Council approves river bridge"
    document = parse_document(_page())
    select_relevant_paragraphs(document, title, DEFAULT)
    headline = [i for i, s in enumerate(document.segments) if s.block.tag == "h1"]
    assert document.title_segments == headline
    removed = parse_document(_page())
    removed.removed_pieces.update(
        i for i, piece in enumerate(removed.pieces) if piece.element.tag == "h1"
    )
    select_relevant_paragraphs(removed, title, DEFAULT)
    assert removed.title_segments == []


def test_title_keywords_are_worked_out_once_per_page_title_and_setting() -> None:
    document = parse_document(_page())
    title = "BBC NEWS | Council approves the river bridge"
    keywords = title_keyword_set(document, title, DEFAULT)
    assert keywords == frozenset(select_title_keywords(title, DEFAULT))
    assert keywords == {"council", "approves", "river", "bridge"}
    assert title_keyword_set(document, title, DEFAULT) is keywords
    # The whole title when the longest segment is not taken: another entry, not the cached one.
    whole = dataclasses.replace(DEFAULT, longest_title_segment=False)
    assert title_keyword_set(document, title, whole) == {"bbc", "news", *keywords}
    assert title_keyword_set(document, "Other title", DEFAULT) == {"other", "title"}
    # Each page keeps its own: a new Document works them out again.
    assert title_keyword_set(parse_document(_page()), title, DEFAULT) is not keywords


def relevant_blocks(
    document: Document, title: str, config: ExtractionConfig
) -> tuple[list[int], list[int]]:
    """(headline blocks, best paragraph group) of a page for a title."""
    keywords = title_keyword_set(document, title, config)
    return _relevant_blocks(document, count_segment_words(document, keywords), keywords, config)


def test_the_first_of_equally_good_groups_wins() -> None:
    # Two groups (one per grandparent) with the same possibility: the first in page order wins.
    html = (
        "<html><body><div id=a><div><p>river one</p></div></div>"
        "<div id=b><div><p>river two</p></div></div></body></html>"
    )
    assert relevant_blocks(parse_document(html), "river", DEFAULT) == ([], [0])


def test_paragraphs_group_by_grandparent_and_namespaced_names_are_never_paragraphs() -> None:
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
    # The headline, then the group under one grandparent.
    assert relevant_blocks(document, "River bridge council", DEFAULT) == ([0], [1, 2, 4, 5])
