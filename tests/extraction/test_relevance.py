"""Han and Tokuda: title keywords, headline detection and the most relevant paragraph group."""

from __future__ import annotations

import dataclasses

from newscrawl.extraction import ExtractionConfig, parse_document, select_relevant_paragraphs
from newscrawl.extraction.relevance import select_title_keywords

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
