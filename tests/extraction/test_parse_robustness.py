"""Malformed markup that libxml2 nests oddly must not hide the article that follows it."""

from __future__ import annotations

import pytest

from newscrawl.extraction import extract, parse_document
from newscrawl.extraction.block_features import _count_upper
from newscrawl.extraction.block_hints import marker_flags

SENTENCE = "Real sentence about the news of the day with many words. "
PARAGRAPH = "<p>" + SENTENCE * 8 + "</p>"


def build_page(between: str) -> str:
    """An article of three paragraphs with `between` (often an unclosed tag) after the first."""
    return (
        "<html><body><article>"
        + PARAGRAPH
        + between
        + PARAGRAPH.replace("Real", "Second")
        + PARAGRAPH.replace("Real", "Third")
        + "</article></body></html>"
    )


@pytest.mark.parametrize(
    "page",
    [
        "<p>Lead words</p></html>\x1c tail words",
        "<p>Lead words</p></html><b>bold</b>\x01 tail words",
        "<p>Lead words</p></html>&#1; tail words",
    ],
)
def test_control_characters_after_a_stray_closing_html_tag_are_dropped(page: str) -> None:
    # libxml2 keeps them in the stray root's text; lxml refuses them when it is moved.
    texts = [segment.text for segment in parse_document(page).segments]
    assert any(text.endswith("tail words") for text in texts)
    assert extract(page).method == "single"  # and extraction no longer raises


def test_json_ld_nested_deeper_than_the_decoder_can_go_is_ignored() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    page = (
        f'<html><head><script type="application/ld+json">{deep}</script></head>'
        "<body><h1>Headline</h1><p>The story of the day, told in one paragraph.</p></body></html>"
    )
    assert extract(page).title == "Headline"


@pytest.mark.parametrize(
    "unclosed",
    [
        "<embed src=x.mp4>",
        "<video src=x.mp4>",
        "<audio src=x.mp3>",
        "<object data=x.swf>",
        "<param name=x value=y>",
        "<source src=x.webm>",
    ],
)
def test_unclosed_media_tag_keeps_the_text_after_it(unclosed: str) -> None:
    text = extract(build_page(unclosed)).text
    assert "Second sentence" in text
    assert "Third sentence" in text


def test_text_directly_after_unclosed_embed_is_visible() -> None:
    document = parse_document(build_page("<embed src=x>Loose words after the embed "))
    texts = " ".join(segment.text for segment in document.segments)
    assert "Loose words after the embed" in texts
    assert "Third sentence" in texts


def test_closed_video_fallback_text_stays_hidden() -> None:
    page = build_page("<video src=x.mp4>Your browser does not support video.</video>")
    text = extract(page).text
    assert "browser does not support" not in text
    assert "Second sentence" in text


def test_released_content_keeps_document_order() -> None:
    document = parse_document(build_page("<embed src=x.mp4>"))
    texts = [segment.text for segment in document.segments]
    firsts = [
        next(i for i, t in enumerate(texts) if t.startswith(word))
        for word in ("Real", "Second", "Third")
    ]
    assert firsts == sorted(firsts)


def test_content_after_a_stray_closing_html_tag_is_walked_in_order() -> None:
    # An embedded ad document closes </html> mid-page; libxml2 starts new top-level roots.
    page = (
        "<html><head><title>T</title></head><body><div>Ad slot</div></body></html>"
        "Loose lead words<p>First paragraph of the story.</p></html>"
        "<html><body>More loose words<p>Second paragraph of the story.</p></body></html>"
    )
    texts = [segment.text for segment in parse_document(page).segments]
    assert texts == [
        "Ad slot",
        "Loose lead words",
        "First paragraph of the story.",
        "More loose words",
        "Second paragraph of the story.",
    ]


@pytest.mark.parametrize(
    ("marker", "flags"),
    [("SideBar", 1), ("ARTICLE-body", 2), ("newsletter", 3), ("Ads", 1), ("plain", 0)],
)
def test_marker_hints_ignore_case(marker: str, flags: int) -> None:
    assert marker_flags(marker) == flags


@pytest.mark.parametrize("text", ["Hello World", "", "lower only", "ÉCOLE Été", "ABC123 xyz"])
def test_upper_count_matches_str_isupper(text: str) -> None:
    assert _count_upper(text) == sum(map(str.isupper, text))


ENCODED_BODY = "<p>Le café du marché a rouvert après trois ans de travaux, dit-on.</p>"


@pytest.mark.parametrize(
    ("head", "encoding", "expected"),
    [
        # No declaration: the bytes are read as UTF-8, not as libxml2's Latin-1 default.
        ("", "utf-8", "café du marché"),
        # A declaration wins, whatever the case of its markup.
        ('<meta charset="iso-8859-1">', "iso-8859-1", "café du marché"),
        (
            '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; CHARSET=ISO-8859-1">',
            "iso-8859-1",
            "café du marché",
        ),
        # Declared Latin-1 but sent as UTF-8: the declaration is believed, as browsers do.
        ('<meta charset="ISO-8859-1">', "utf-8", "cafÃ© du marchÃ©"),
        (
            '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; CHARSET=ISO-8859-1">',
            "utf-8",
            "cafÃ© du marchÃ©",
        ),
        # Plain ASCII with character references reads the same in every encoding.
        ("", "ascii", "café du marché"),
    ],
)
def test_page_bytes_are_decoded_by_declaration_else_as_utf8(
    head: str, encoding: str, expected: str
) -> None:
    html = f"<html><head>{head}<title>Café</title></head><body>{ENCODED_BODY}</body></html>"
    if encoding == "ascii":
        html = html.replace("é", "&eacute;").replace("è", "&#232;")
    texts = [segment.text for segment in parse_document(html.encode(encoding)).segments]
    assert any(expected in text for text in texts)


def test_a_late_charset_declaration_in_an_ascii_page_is_not_obeyed() -> None:
    # Beyond the window that is searched for a declaration, an undeclared page is read as
    # UTF-8 text: a stray utf-16 declaration further down must not garble what came before.
    html = (
        "<html><head><script>" + "x" * 40_000 + '</script><meta charset="utf-16"></head>'
        "<body><p>Hello world</p></body></html>"
    ).encode("ascii")
    assert [segment.text for segment in parse_document(html).segments] == ["Hello world"]


@pytest.mark.parametrize(
    "markup",
    [
        "<p>a<!--x-->b</p><div>c<?pi x?>d</div>",
        "<!-- top --><html><body><table><!--c--><tr><td>x</td></tr></table>t<!--y-->u</body>",
        "<ul><!--c--><li>a</ul><p>x<!--z--></p>tail",
        "<head><title>T</title><!-- h --></head><body>one<!-- a --><!-- b --> two</body>",
    ],
)
def test_the_parsed_tree_is_the_tree_with_comments_stripped(markup: str) -> None:
    """No comment nor processing instruction is left, and the text around each is joined."""
    import lxml.etree
    import lxml.html

    from newscrawl.extraction.page_tree import parse_tree

    stripped = lxml.html.document_fromstring(markup)
    lxml.etree.strip_tags(stripped, lxml.etree.Comment, lxml.etree.ProcessingInstruction)
    assert lxml.etree.tostring(parse_tree(markup)) == lxml.etree.tostring(stripped)
    assert lxml.etree.tostring(parse_tree(markup.encode())) == lxml.etree.tostring(stripped)
