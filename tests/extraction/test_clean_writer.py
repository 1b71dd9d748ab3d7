"""The cleaned article's writer: escaping, URLs, text blocks, and HTML that parses back."""

from __future__ import annotations

import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newscrawl.extraction import clean_html, extract
from newscrawl.extraction.clean_html import (
    _drop_nested,
    escape_uri,
    quote_attribute,
    render_clean_html,
)
from tests.extraction.safety_checks import assert_safe_html

from .fixtures.neighbour_sites import generate_site

# Text and attribute values with what the writer and serialiser treat specially: entities'
# characters, both quotes, runs of spaces and newlines, control characters, non-ASCII.
tricky_text = st.lists(
    st.sampled_from(list("ab &<>\"'\n\t\r\x0b\x01\xa0é—\u2028") + ["  ", "word"]),
    max_size=12,
).map("".join)
tricky_tags = st.sampled_from(
    ["p", "div", "span", "a", "b", "li", "ul", "ol", "pre", "img", "br", "figure", "td",
     "table", "h1", "h3", "blockquote", "q", "section", "button", "script", "svg", "font",
     "Custom", "x:y"]
)
tricky_attribute = st.sampled_from(
    ["href", "src", "title", "alt", "cite", "colspan", "scope", "start", "data-src", "class"]
)


@st.composite
def tricky_element(draw: st.DrawFn, depth: int = 0) -> lxml.html.HtmlElement:
    """An element built node by node: text, tails and attributes no markup would give."""
    element = lxml.html.Element(draw(tricky_tags))
    for name in draw(st.lists(tricky_attribute, max_size=3)):
        element.set(name, clean_html.XML_INCOMPATIBLE.sub("", draw(tricky_text)))
    element.text = clean_html.XML_INCOMPATIBLE.sub("", draw(tricky_text)) or None
    if depth < 3:
        for child in draw(st.lists(tricky_element(depth + 1), max_size=3)):
            child.tail = clean_html.XML_INCOMPATIBLE.sub("", draw(tricky_text)) or None
            element.append(child)
    return element


def render(elements: list[lxml.html.HtmlElement | str], base_url: str | None) -> str:
    """The writer's HTML for these elements, as `extract` calls it."""
    return render_clean_html(_drop_nested(elements), base_url=base_url, outermost=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(tricky_element(), tricky_text), min_size=1, max_size=4))
def test_written_html_is_safe_and_the_input_is_left_as_it_was(
    elements: list[lxml.html.HtmlElement | str],
) -> None:
    before = [e if isinstance(e, str) else lxml.html.tostring(e) for e in elements]
    html = render(elements, "https://ex.com/a/")
    assert_safe_html(html)
    assert [e if isinstance(e, str) else lxml.html.tostring(e) for e in elements] == before


@pytest.mark.parametrize("layout", ["classic", "divs"])
def test_generated_articles_are_written(layout: str) -> None:
    for page in generate_site(5, pages=4, layout=layout):
        tree = lxml.html.document_fromstring(page.html)
        body = tree.find("body")
        assert body is not None
        html = render([*body, "A made-up paragraph."], "https://ex.com/")
        assert html.endswith("<p>A made-up paragraph.</p>")
        assert extract(page.html, title=page.title).html  # and extract's own call writes


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://ex.com/a b", "https://ex.com/a%20b"),
        ("https://ex.com/café", "https://ex.com/caf%C3%A9"),
        (" \t\nhttps://ex.com/", "https://ex.com/"),
        ("https://ex.com/?a=1&b=2", "https://ex.com/?a=1&b=2"),
        ("https://ex.com/%41", "https://ex.com/%41"),
        ("https://ex.com/\x7f\n", "https://ex.com/%7F%0A"),
    ],
)
def test_url_attributes_are_percent_encoded(value: str, expected: str) -> None:
    assert escape_uri(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", '"plain"'),
        ('say "hi"', "'say \"hi\"'"),
        ("it's \"x\"", '"it\'s &quot;x&quot;"'),
        ("a<b>&c", '"a&lt;b&gt;&amp;c"'),
    ],
)
def test_attribute_values_are_escaped_and_quoted(value: str, expected: str) -> None:
    assert quote_attribute(value) == expected
    # Whatever the quotes, an HTML parser reads the value back.
    parsed = lxml.html.fragment_fromstring(f"<a title={expected}>x</a>")
    assert parsed.get("title") == value


def test_written_html_reads_back_as_the_same_text_and_links() -> None:
    tree = lxml.html.fragment_fromstring(
        '<div><p>Fish &amp; chips &lt;3 <a href="/menu?a=1&amp;b=2" title=\'say "hi"\'>'
        "the menu</a> are back</p><ul><li></li><li>One</li></ul><img src='/caf\xe9.png'></div>"
    )
    html = render_clean_html([tree], base_url="https://ex.com/")
    assert "<li></li>" not in html and "<li>" in html  # an empty item has no end tag
    reread = lxml.html.fragment_fromstring(html, create_parent="div")
    assert reread.text_content().startswith("Fish & chips <3 the menu are back")
    link = reread.find(".//a")
    assert link is not None
    assert link.get("href") == "https://ex.com/menu?a=1&b=2"
    assert link.get("title") == 'say "hi"'
    image = reread.find(".//img")
    assert image is not None and image.get("src") == "https://ex.com/caf%C3%A9.png"


@settings(max_examples=200, deadline=None)
@given(tricky_text, tricky_text)
def test_a_text_block_is_written_as_a_paragraph_holding_it(before: str, text: str) -> None:
    text = clean_html.XML_INCOMPATIBLE.sub("", text)
    paragraph = lxml.html.Element("p")
    paragraph.text = text
    lead = lxml.html.fragment_fromstring("<div>lead <b>x</b></div>")
    lead[0].tail = clean_html.XML_INCOMPATIBLE.sub("", before) or None
    assert render([lead, text], None) == render([lead, paragraph], None)


def test_text_blocks_may_be_str_subclasses() -> None:
    # lxml's text results (`_ElementUnicodeResult`) are str subclasses: written like any text.
    text = lxml.html.fromstring("<div><p>Fish  &amp; chips</p></div>").xpath("//p/text()")[0]
    assert type(text) is not str
    assert render([text], None) == "<p>Fish &amp; chips</p>"
