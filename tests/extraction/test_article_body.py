"""The article body a page's scripts hold (JSON-LD `articleBody`, app page state) as a fallback."""

from __future__ import annotations

import json

from newscrawl.extraction import ExtractionConfig, extract, parse_document
from newscrawl.extraction.article_body import fill_from_body, split_paragraphs
from newscrawl.extraction.metadata import extract_metadata

PARAGRAPHS = [
    f"Paragraph {n} of the harbour story says the new quay opened on day {n} after a long "
    f"dispute over its cost, and the mayor promised that ferries would call there every hour."
    for n in range(1, 7)
]


def _page(body_html: str, scripts: str = "") -> str:
    return (
        "<html><head><title>Harbour quay opens</title>" + scripts + "</head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        "<h1>Harbour quay opens</h1>" + body_html + "<footer>Contact us</footer></body></html>"
    )


def _jsonld(body: object, **extra: object) -> str:
    data = {"@context": "https://schema.org", "@type": "NewsArticle", "articleBody": body}
    data.update(extra)
    return f"<script type='application/ld+json'>{json.dumps(data)}</script>"


def test_an_article_only_in_json_ld_is_extracted_as_paragraphs() -> None:
    page = _page("<div id='app'></div>", _jsonld("\n\n".join(PARAGRAPHS)))
    article = extract(page, title="Harbour quay opens")
    assert article.text == "\n\n".join(PARAGRAPHS)
    assert article.html.count("<p>") == len(PARAGRAPHS)
    assert "Contact us" not in article.text


def test_the_fallback_can_be_switched_off() -> None:
    page = _page("<div id='app'></div>", _jsonld("\n\n".join(PARAGRAPHS)))
    article = extract(page, config=ExtractionConfig(use_structured_body=False))
    assert PARAGRAPHS[0] not in article.text


def test_a_visible_article_as_long_as_the_body_is_left_alone() -> None:
    visible = "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    page = _page(f"<article>{visible}</article>", _jsonld("\n".join(PARAGRAPHS[:5])))
    with_body = extract(page, title="Harbour quay opens")
    off = ExtractionConfig(use_structured_body=False)
    without = extract(page, title="Harbour quay opens", config=off)
    assert with_body == without


def test_hidden_blocks_that_the_body_holds_are_added_with_their_markup() -> None:
    html = "<body>" + "".join(f"<p>{text}</p>" for text in PARAGRAPHS) + "</body>"
    document = parse_document(html)
    texts = [segment.text for segment in document.segments]
    kept, paragraphs, replaced = fill_from_body(document, [0, 1], texts[:2], PARAGRAPHS)
    assert not replaced
    assert kept == list(range(len(PARAGRAPHS)))
    assert paragraphs == PARAGRAPHS


def test_blocks_the_body_does_not_hold_are_not_added() -> None:
    related = "Read more: the council also voted on a new cycle lane along the river yesterday"
    html = "<body>" + "".join(f"<p>{t}</p>" for t in [*PARAGRAPHS[:4], related]) + "</body>"
    document = parse_document(html)
    texts = [segment.text for segment in document.segments]
    kept, _, replaced = fill_from_body(document, [0], texts[:1], PARAGRAPHS)
    assert not replaced
    assert kept == [0, 1, 2, 3]


def test_a_body_that_tells_another_story_is_ignored() -> None:
    other = [
        f"Line {n}: the football club announced a new coach for the coming season, who will "
        "start training the first team in July and brings three assistants along with him."
        for n in range(1, 9)
    ]
    html = "<body>" + "".join(f"<p>{text}</p>" for text in PARAGRAPHS[:2]) + "</body>"
    document = parse_document(html)
    texts = [segment.text for segment in document.segments]
    assert fill_from_body(document, [0, 1], texts, other) == ([0, 1], texts, False)


def test_a_short_body_is_only_a_teaser() -> None:
    document = parse_document("<body><p>Short.</p></body>")
    assert fill_from_body(document, [], [], ["The quay opened today."]) == ([], [], False)


def test_body_strings_lose_markup_and_every_level_of_escaping() -> None:
    raw = "<p>Fran&amp;ccedil;ois said:&nbsp;yes.</p><p>Second <b>line</b>.<br>Third line.</p>"
    assert split_paragraphs(raw) == ["François said: yes.", "Second line.", "Third line."]
    assert split_paragraphs("One.\n\n\n  Two  words.\n") == ["One.", "Two words."]


def test_a_body_given_as_a_list_of_paragraphs_is_read() -> None:
    page = _page("<div id='app'></div>", _jsonld(PARAGRAPHS))
    assert extract(page).text == "\n\n".join(PARAGRAPHS)


def test_the_article_in_next_js_page_state_is_found_without_teasers_or_footer() -> None:
    state = {
        "props": {
            "pageProps": {
                "footer": {"legal": "Copyright 2026 Harbour News. All rights reserved here."},
                "teasers": [
                    {"headline": "Council votes on new cycle lane along the river bank"},
                    {"headline": "Football club names a new coach for the coming season"},
                ],
                "article": {
                    "headline": "Harbour quay opens",
                    "blocks": [{"type": "paragraph", "text": text} for text in PARAGRAPHS],
                },
            }
        }
    }
    script = f"<script id='__NEXT_DATA__' type='application/json'>{json.dumps(state)}</script>"
    article = extract(_page("<div id='__next'></div>", script), title="Harbour quay opens")
    assert article.text == "\n\n".join(PARAGRAPHS)


def test_page_state_assigned_to_a_window_variable_is_read() -> None:
    state = {"page": {"body": [{"html": f"<p>{text}</p>"} for text in PARAGRAPHS]}}
    script = f"<script>window.__PRELOADED_STATE__ = {json.dumps(state)};</script>"
    assert extract(_page("<main></main>", script)).text == "\n\n".join(PARAGRAPHS)


def test_broken_json_in_scripts_is_skipped() -> None:
    scripts = (
        "<script type='application/ld+json'>{\"articleBody\": </script>"
        "<script id='__NEXT_DATA__' type='application/json'>[[[[</script>"
        "<script>window.__STATE__ = {oops};</script>"
    )
    page = _page("<p>Only a line.</p>", scripts)
    assert extract(page) == extract(page, config=ExtractionConfig(use_structured_body=False))


def test_the_metadata_keeps_the_longest_article_body_as_given() -> None:
    short = _jsonld("A teaser of the story, shorter than the body.")
    full = _jsonld("<p>" + "</p><p>".join(PARAGRAPHS) + "</p>")
    metadata = extract_metadata(parse_document(_page("", short + full)).tree, None)
    assert metadata.article_body == "<p>" + "</p><p>".join(PARAGRAPHS) + "</p>"
    assert extract_metadata(parse_document(_page("")).tree, None).article_body is None
