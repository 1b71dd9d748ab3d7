"""Recognised page furniture: dialogs, prompts, comments, related links, captions, copyright."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction import ExtractionConfig, extract, parse_document, prompt_noise
from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.block_scorer import MODEL_FORMAT, MODEL_FORMAT_VERSION, BlockModel
from newscrawl.extraction.document import Document
from newscrawl.extraction.prompt_noise import (
    find_noise_segments,
    is_copyright_line,
    name_noise_class,
)
from newscrawl.extraction.relevance import select_relevant_paragraphs

ARTICLE = [
    f"Paragraph {n}: the regional council approved the new tram line on Tuesday after months "
    f"of debate, and the first trains are expected to run through the old town in spring {n}."
    for n in range(1, 7)
]
# Prose as long and as well punctuated as the article: only its container gives it away.
FURNITURE = [
    f"Sentence {n} of the box says readers value what we publish, and that our reporters work "
    f"hard every single day so that you can read the news you need, wherever you are {n}."
    for n in range(1, 6)
]
OFF = ExtractionConfig(drop_prompt_noise=False)


def _keep_all() -> BlockModel:
    """A model of one leaf that keeps every block: the furniture reaches the noise stage."""
    tree = {"feature": [-1], "threshold": [0.0], "left": [0], "right": [0], "value": [0.0]}
    return BlockModel.from_dict(
        {
            "format": MODEL_FORMAT,
            "format_version": MODEL_FORMAT_VERSION,
            "feature_names": list(FEATURE_NAMES),
            "base_score": 3.0,
            "learning_rate": 1.0,
            "trees": [tree],
        }
    )


KEEP_ALL = _keep_all()


def _page(furniture: str, *, before: bool = False) -> str:
    article = "<article><h1>Tram line approved</h1>" + "".join(f"<p>{t}</p>" for t in ARTICLE)
    article += "</article>"
    body = furniture + article if before else article + furniture
    return f"<html><head><title>Tram line approved</title></head><body>{body}</body></html>"


def _box(opening: str, closing: str = "</div>") -> str:
    return opening + "".join(f"<p>{text}</p>" for text in FURNITURE) + closing


@pytest.mark.parametrize(
    ("furniture", "before"),
    [
        (_box("<div id='onetrust-consent-sdk'>"), False),
        (_box("<div class='cmp-container'>"), True),
        (_box("<div role='dialog' aria-label='Datenschutz'>"), True),
        (_box("<div class='overlay' aria-modal='true'>"), False),
        (_box("<dialog open>", "</dialog>"), False),
        (_box("<div class='newsletterSignup'>"), False),
        (_box("<aside class='paywall-prompt'>", "</aside>"), False),
        (_box("<div class='sign-in-box'>"), False),
        (_box("<div id='comments'>"), False),
        (_box("<ol class='commentlist'>", "</ol>"), False),
        (_box("<div class='relatedArticles'>"), False),
        (_box("<div class='author-bio'>"), False),
        (_box("<div class='post-tags'>"), False),
    ],
)
def test_furniture_the_scorer_keeps_is_dropped(furniture: str, before: bool) -> None:
    page = _page(furniture, before=before)
    # Whatever the shipped model makes of it, a scorer that keeps every block keeps the
    # furniture: only the noise stage can drop it, so the test can fail.
    off = ExtractionConfig(drop_prompt_noise=False, block_model=KEEP_ALL)
    kept = extract(page, title="Tram line approved", config=off).text
    assert any(t in kept for t in FURNITURE)
    config = ExtractionConfig(block_model=KEEP_ALL)
    text = extract(page, title="Tram line approved", config=config).text
    assert not any(t in text for t in FURNITURE)
    text = extract(page, title="Tram line approved").text
    assert not any(t in text for t in FURNITURE)
    assert all(paragraph in text for paragraph in ARTICLE)


def test_an_article_wrapped_in_a_noise_name_is_kept() -> None:
    # Nothing is left outside the recognised containers: they must be the article's.
    paragraphs = "".join(f"<p>{t}</p>" for t in ARTICLE)
    page = f"<html><body><div class='newsletter-box'><h1>Tram</h1>{paragraphs}</div></body></html>"
    assert all(paragraph in extract(page).text for paragraph in ARTICLE)


def test_gated_text_larger_than_the_rest_is_the_article() -> None:
    lede = "<p>The council met on Tuesday.</p>"
    gated = "".join(f"<p>{t}</p>" for t in ARTICLE)
    page = (
        "<html><body><article><h1>Tram line approved</h1>" + lede + f"<p>{ARTICLE[0]}</p>"
        f"<div class='post-paywall'>{gated}</div></article></body></html>"
    )
    text = extract(page, title="Tram line approved").text
    assert all(paragraph in text for paragraph in ARTICLE)


def test_a_second_story_appended_below_is_dropped() -> None:
    other = [
        f"Line {n}: the football club named a new coach, who will start work in July and has "
        f"signed a contract until the summer of the year {2030 + n}, the club said."
        for n in range(1, 8)
    ]
    second = "<article><h1>Club names coach</h1>" + "".join(f"<p>{t}</p>" for t in other)
    page = _page("<div>" + second + "</article></div>")
    assert other[0] in extract(page, title="Tram line approved", config=OFF).text
    text = extract(page, title="Tram line approved").text
    assert other[0] not in text and ARTICLE[-1] in text


CAPTIONS = [
    f"Caption {n}: workers lay the rails of the new tram line near the old town hall on a cold "
    f"morning in the week before the council's vote, seen from the cathedral tower {n}."
    for n in range(1, 3)
]


def _figure(caption: str) -> str:
    return f"<figure><img src='/tram.jpg' alt=''><figcaption>{caption}</figcaption></figure>"


def test_figure_captions_beside_the_article_are_dropped() -> None:
    paragraphs = [f"<p>{t}</p>" for t in ARTICLE]
    body = paragraphs[:2] + [_figure(CAPTIONS[0])] + paragraphs[2:4] + [_figure(CAPTIONS[1])]
    page = (
        "<html><body><article><h1>Tram line approved</h1>"
        + "".join(body + paragraphs[4:])
        + "</article></body></html>"
    )
    off = ExtractionConfig(drop_prompt_noise=False, block_model=KEEP_ALL)
    assert all(c in extract(page, title="Tram line approved", config=off).text for c in CAPTIONS)
    text = extract(page, title="Tram line approved", config=ExtractionConfig(block_model=KEEP_ALL))
    assert not any(c in text.text for c in CAPTIONS)
    assert all(paragraph in text.text for paragraph in ARTICLE)


def test_a_photo_post_keeps_captions_that_outweigh_its_text() -> None:
    # Two lines under the pictures: the captions are the post.
    page = (
        "<html><body><article><h1>Tram line approved</h1>"
        "<p>The council approved the tram line on Tuesday; our photographer was there.</p>"
        + "".join(_figure(c) for c in CAPTIONS)
        + "</article></body></html>"
    )
    config = ExtractionConfig(block_model=KEEP_ALL)
    text = extract(page, title="Tram line approved", config=config).text
    assert all(c in text for c in CAPTIONS)


def _teasers(item: str, count: int = 4) -> str:
    """A list of other stories: `count` items of one shape, from `item` with {n} filled in."""
    return "<ul class='stack'>" + "".join(item.format(n=n) for n in range(count)) + "</ul>"


TEASER = (
    "<li class='card'><img src='/t{n}.jpg' alt=''><h3><a href='/story-{n}'>Story {n}: the "
    "bridge over the river reopens after repairs</a></h3><p>Drivers can use it again from "
    "Monday, the city says {n}.</p></li>"
)


def test_teasers_of_other_stories_are_dropped() -> None:
    page = _page(_teasers(TEASER))
    off = ExtractionConfig(drop_prompt_noise=False, block_model=KEEP_ALL)
    assert "Drivers can use it again" in extract(page, title="Tram line approved", config=off).text
    text = extract(page, title="Tram line approved", config=ExtractionConfig(block_model=KEEP_ALL))
    assert "bridge over the river" not in text.text
    assert "Drivers can use it again" not in text.text
    assert all(paragraph in text.text for paragraph in ARTICLE)


@pytest.mark.parametrize(
    ("items", "teaser"),
    [
        (_teasers(TEASER), True),
        (_teasers(TEASER, count=2), False),  # two items are no list of teasers
        # A bare list of links: some readers count a body's reading list as the article.
        (_teasers("<li><a href='/s{n}'>Story {n}: the bridge reopens</a></li>"), False),
        # A body's list item: a link inside a sentence.
        (
            _teasers(
                "<li>The council met on Tuesday and, as the <a href='/m'>minutes</a> show, "
                "approved the plan for the new tram line through the old town {n}.</li>"
            ),
            False,
        ),
        (_teasers(TEASER.replace("<li", "<p").replace("</li>", "</p>")), False),
    ],
)
def test_teaser_items(items: str, teaser: bool) -> None:
    document = parse_document(f"<html><body>{items}</body></html>")
    first = document.tree.find(".//ul")[0]
    assert prompt_noise.is_teaser(first) is teaser


def test_the_post_among_a_blogs_latest_posts_keeps_its_headline() -> None:
    # The list comes first: its copy of the headline is the one kept, the <h1> a duplicate.
    titles = ["Tram line approved", "Bridge reopens", "Market moves", "Library extends hours"]
    latest = (
        "<ul>"
        + "".join(
            f"<li class='recent'><img src='/p{n}.jpg' alt=''><a href='/p{n}'>{t}</a></li>"
            for n, t in enumerate(titles)
        )
        + "</ul>"
    )
    page = (
        f"<html><head><title>Tram line approved</title></head><body>{latest}"
        "<article><h1>Tram line approved</h1>"
        + "".join(f"<p>{t}</p>" for t in ARTICLE)
        + "</article></body></html>"
    )
    text = extract(page, title="Tram line approved", config=ExtractionConfig(block_model=KEEP_ALL))
    assert "Tram line approved" in text.text


def test_kept_copyright_lines_are_noise() -> None:
    document = parse_document(_page("<p>© 2026 Tram Times. Tous droits réservés.</p>"))
    kept = list(range(len(document.segments)))
    noise = find_noise_segments(document, kept)
    assert [document.segments[i].text for i in noise] == [
        "© 2026 Tram Times. Tous droits réservés."
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("© 2024 Example Media", True),
        ("Copyright (c) 2019 Example", True),
        ("Alle Rechte vorbehalten.", True),
        ("Все права защищены", True),
        ("版权所有", True),
        ("The court ruled on the copyright claim brought by the band.", False),
        ("All rights reserved. " + "A long paragraph of the article. " * 10, False),
    ],
)
def test_copyright_lines(text: str, expected: bool) -> None:
    assert is_copyright_line(text) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("comment-list", "comments"),
        ("commentary", None),  # an opinion piece, not reader comments
        ("commentator-box", None),
        ("commentbody", "comments"),  # threads name their parts freely
        ("comment-stream", "comments"),
        ("dsq-comment-body", "comments"),
        ("tag-politics", None),  # WordPress post class: a label of the post
        ("article-tags", "tags"),
        ("sign-in-wall", None),
        ("sign-in", "prompt"),
        ("cookieBanner", "consent"),
        ("relatedStories", "related"),
        ("about-author", "profile"),
        ("story-body", None),
        ("piano-inline-content-wrapper", None),  # a paywall vendor's box holds the gated text
    ],
)
def test_class_names(name: str, expected: str | None) -> None:
    assert name_noise_class(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("onetrust-consent-sdk", "consent"),
        ("qc-cmp2-container", "consent"),
        ("sp_message_container_1234", "consent"),
        ("disqus_thread", "comments"),
    ],
)
def test_vendor_widgets_and_numbered_names(name: str, expected: str) -> None:
    assert name_noise_class(name) == expected


def test_every_paragraph_marked_as_gated_is_the_article() -> None:
    gated = "".join(f"<p class='paywall'>{t}</p>" for t in ARTICLE[1:])
    page = (
        f"<html><body><article><h1>Tram line approved</h1><p>{ARTICLE[0]}</p>{gated}"
        "</article></body></html>"
    )
    text = extract(page, title="Tram line approved").text
    assert all(paragraph in text for paragraph in ARTICLE)


def _titled(page: str, title: str = "Tram line approved") -> Document:
    """The parsed page with its headline found, as the relevance stage finds it."""
    document = parse_document(page)
    select_relevant_paragraphs(document, title, ExtractionConfig())
    assert document.title_segments  # the rules below depend on it
    return document


def _thread_page(wrapper: str, thread: str) -> str:
    """The article in a wrapper, then readers' comments whose parts are named `thread`."""
    comments = "".join(f"<div class='{thread}'><p>{text}</p></div>" for text in FURNITURE)
    article = "".join(f"<p>{text}</p>" for text in ARTICLE)
    return (
        f"<html><body class='{wrapper}'><div class='{wrapper}'><h1>Tram line approved</h1>"
        f"{article}<div class='thread'>{comments}</div></div></body></html>"
    )


@pytest.mark.parametrize("thread", ["commentbody by-reader", "comment even depth-1"])
def test_a_thread_inside_a_wrapper_named_for_comments_is_dropped(thread: str) -> None:
    # WordPress marks the body "comments-open": a wrapper that holds the headline is no
    # thread, so the thread inside it is still found.
    document = _titled(_thread_page("comments-open", thread))
    kept = list(range(len(document.segments)))  # as if the scorer kept every block
    noise = {document.segments[i].text for i in find_noise_segments(document, kept)}
    assert noise == set(FURNITURE)


def test_commentary_is_not_a_comment_thread() -> None:
    document = _titled(_thread_page("page", "commentary-body"))
    kept = list(range(len(document.segments)))
    assert find_noise_segments(document, kept) == set()


def test_comments_stay_when_the_page_keeps_nothing_else() -> None:
    comments = "".join(f"<div class='comment'><p>{text}</p></div>" for text in FURNITURE)
    page = f"<html><body><h1>Tram</h1><div id='comments'>{comments}</div></body></html>"
    document = _titled(page, "Tram")
    assert find_noise_segments(document, range(len(document.segments))) == set()


def test_a_short_post_above_a_long_thread_loses_the_thread() -> None:
    # Other furniture needs a full paragraph of article beside it; a thread only a line.
    post = "A quick note from the newsroom: the new tram line opens in spring, and we will ride it."
    comments = "".join(f"<div class='comment'><p>{text}</p></div>" for text in FURNITURE)
    page = (
        f"<html><body><h1>Tram</h1><p>{post}</p><div id='comments'>{comments}</div></body></html>"
    )
    document = _titled(page, "Tram")
    noise = {
        document.segments[i].text
        for i in find_noise_segments(document, range(len(document.segments)))
    }
    assert noise == set(FURNITURE)
    related = page.replace("id='comments'", "class='related-box'").replace("'comment'", "'item'")
    document = _titled(related, "Tram")
    assert find_noise_segments(document, range(len(document.segments))) == set()


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@settings(deadline=None, max_examples=300)
@given(
    st.text(alphabet=_LETTERS, max_size=12),
    st.sampled_from(sorted(prompt_noise._WORD_TO_CLASS)),
    st.integers(min_value=0, max_value=3),
    st.text(alphabet=_LETTERS, max_size=12),
)
def test_noise_word_pattern_matches_exactly_when_a_noise_word_is_inside(
    before: str, word: str, cut: int, after: str
) -> None:
    # Words cut short test the shared prefixes: "commen" must not match, "comments" must.
    text = before + word[: len(word) - cut] + after
    holds = any(noise_word in text for noise_word in prompt_noise._WORD_TO_CLASS)
    assert (prompt_noise._ANY_WORD.search(text) is not None) == holds
    assert prompt_noise._holds_noise_word(text) == holds


@pytest.mark.parametrize(
    "html",
    [
        "<div><p>One <b>two</b> three</p>tail of p<ul><li>a</li> <li>b c</li></ul></div>after div",
        "<div>lead<script>var x = 'long script text';</script><noscript>no script</noscript>"
        "<span> spaced\n\t words </span><!-- a comment --> end</div><p>next</p>",
        "<section><div><a href='/x'>link text</a> &amp; more<br>line two</div>tail</section>",
    ],
)
def test_walked_text_under_an_element_is_never_more_than_its_own_text(html: str) -> None:
    # find_noise_segments rules a teaser out on the walk's pieces alone, which is only safe
    # while an element's pieces hold no more visible characters than its itertext.
    document = parse_document(f"<html><body>{html}</body></html>")
    for node, element in enumerate(document.node_elements):
        walked = sum(
            len("".join(piece.text.split()))
            for piece in document.pieces[document.node_starts[node] : document.node_ends[node]]
        )
        assert walked <= sum(len("".join(text.split())) for text in element.itertext())


def _linked_line_page(line: str) -> str:
    paragraphs = [f"<p>{text}</p>" for text in ARTICLE]
    paragraphs.insert(3, line)
    return (
        "<html><head><title>Tram line approved</title></head><body><article>"
        f"<h1>Tram line approved</h1>{''.join(paragraphs)}</article></body></html>"
    )


@pytest.mark.parametrize(
    ("line", "dropped"),
    [
        # Another story's headline, linked between two paragraphs, in any language.
        ("<p><strong><a href='/s/1'>BRIDGE REOPENS AFTER TWO YEARS OF WORK</a></strong></p>", True),
        ("<p><a href='/s/2'>Neue Brücke über den Rhein wird im Mai eröffnet</a></p>", True),
        ("<div><a href='/s/3'>Le pont rouvre après deux ans de travaux</a>.</div>", True),
        # A subheading that links somewhere is the body's own (a blog links its titles).
        ("<h2><a href='/s/4'>What the council decided next</a></h2>", False),
        # A sentence with a link in it, and a link too short to be a headline.
        ("<p>The <a href='/m'>minutes of the meeting</a> were published on Friday.</p>", False),
        ("<p><a href='/more'>More news</a></p>", False),
    ],
)
def test_a_linked_headline_of_another_story_in_the_body_is_dropped(
    line: str, dropped: bool
) -> None:
    page = _linked_line_page(line)
    segments = parse_document(page).segments
    words = next(s.text for s in segments[1:] if s.text not in ARTICLE)
    off = ExtractionConfig(drop_prompt_noise=False, block_model=KEEP_ALL)
    assert words in extract(page, title="Tram line approved", config=off).text
    text = extract(page, title="Tram line approved", config=ExtractionConfig(block_model=KEEP_ALL))
    assert (words not in text.text) is dropped
    assert all(paragraph in text.text for paragraph in ARTICLE)


def test_a_linked_line_stays_when_little_else_is_kept() -> None:
    page = (
        "<html><body><article><h1>Tram line approved</h1><p>The council met.</p>"
        "<p><a href='/s/1'>Bridge reopens after two years of work</a></p></article></body></html>"
    )
    text = extract(page, title="Tram line approved", config=ExtractionConfig(block_model=KEEP_ALL))
    assert "Bridge reopens after two years of work" in text.text


def test_a_linked_copy_of_the_headline_in_a_list_of_latest_posts_stays() -> None:
    # The list comes first and its copy of the headline is the one kept (the <h1> a duplicate).
    title = "Groups offer their advice on the next council chair"
    latest = f"<ul><li><a href='/p1'>{title}</a></li><li><a href='/p2'>Market</a></li></ul>"
    page = (
        f"<html><body>{latest}<article><h1>{title}</h1>"
        + "".join(f"<p>{t}</p>" for t in ARTICLE)
        + "</article></body></html>"
    )
    text = extract(page, config=ExtractionConfig(block_model=KEEP_ALL)).text
    assert title in text
