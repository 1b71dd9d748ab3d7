"""Property tests: extraction never raises, never invents text, and its HTML is always safe."""

from __future__ import annotations

import re

import lxml.etree
import lxml.html
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from newscrawl.extraction import extract, learn_static_noise, parse_document
from newscrawl.extraction.clean_html import render_clean_html
from newscrawl.extraction.document import SKIPPED_TAGS
from tests.extraction.safety_checks import assert_safe_html

_TOKEN = re.compile(r"\w+")
# Containers the extractor never reads (svg, math, select...): text on either side of one runs
# together, as a reader sees it.
INVISIBLE = tuple(sorted(SKIPPED_TAGS))
PROPERTY_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

words = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="<>&"),
    max_size=40,
)
entity = st.sampled_from(["&amp;", "&lt;", "&#106;", "&#x3c;", "&nbsp;", "&bogus;", "&"])
attribute = st.sampled_from(
    ['href="/x"', 'href="javascript:alert(1)"', 'onclick="x()"', 'class="nav"', "src=x",
     'style="color:red"', 'lang="fr"', 'id="main"', "data-src=/i.png", 'href=" data:x"']
)
tag = st.sampled_from(
    ["p", "div", "a", "span", "b", "h1", "h2", "ul", "li", "table", "tr", "td", "script",
     "style", "form", "input", "svg", "math", "iframe", "title", "meta", "article", "nav",
     "img", "br", "figure", "figcaption", "template", "noscript", "blockquote", "select"]
)


@st.composite
def element(draw: st.DrawFn, depth: int = 0) -> str:
    """A random, possibly malformed, element: open/close tags may be missing or crossed."""
    name = draw(tag)
    attrs = " ".join(draw(st.lists(attribute, max_size=2)))
    parts = [draw(st.one_of(words, entity))]
    if depth < 3:
        parts += draw(st.lists(element(depth + 1), max_size=3))
    parts.append(draw(words))
    closing = draw(st.sampled_from([f"</{name}>", "", "</p>", f"</{name}"]))
    return f"<{name} {attrs}>{''.join(parts)}{closing}"


html_pages = st.builds(
    lambda head, body, tail: f"<html><head>{head}</head><body>{body}</body>{tail}",
    st.lists(element(), max_size=2).map("".join),
    st.lists(element(), max_size=6).map("".join),
    st.one_of(st.just(""), words, st.just("</html><p>after")),
)


def page_text(html: str | bytes) -> str:
    """All the page's text, its attribute values (og:title and the like) and its visible text
    with scripts and styles removed, which a reader sees run together."""
    tree = parse_document(html).tree
    chunks = [tree.text_content()]  # everything, <title> included
    chunks += [value for node in tree.iter() if isinstance(node.tag, str)
               for value in node.attrib.values()]
    lxml.etree.strip_elements(tree, *INVISIBLE, with_tail=False)
    chunks.append(tree.text_content())
    return " ".join(chunks).lower()


def assert_tokens_from_page(text: str, page: str) -> None:
    for token in _TOKEN.findall(text.lower()):
        assert token in page, f"{token!r} is not in the page"


@PROPERTY_SETTINGS
@given(html_pages)
@example("<html><head></head><body><p>1<svg>0</svg>A</p></body>")  # text either side of a skip
def test_extract_never_raises_and_only_returns_page_text(html: str) -> None:
    article = extract(html)
    assert_tokens_from_page(article.text, page_text(html))
    assert_safe_html(article.html)


@PROPERTY_SETTINGS
@given(html_pages, st.text(max_size=30))
def test_extract_with_a_title_only_returns_page_text(html: str, title: str) -> None:
    article = extract(html, title=title, url="https://ex.com/a/b")
    assert_tokens_from_page(article.text, page_text(html))
    assert_safe_html(article.html)


@PROPERTY_SETTINGS
@given(st.lists(html_pages, min_size=1, max_size=3), html_pages)
def test_extract_with_a_template_never_raises(neighbours: list[str], html: str) -> None:
    template = learn_static_noise(neighbours)
    article = extract(html, template=template)
    assert article.method in {"neighbours", "single"}
    assert_tokens_from_page(article.text, page_text(html))
    assert_safe_html(article.html)


@PROPERTY_SETTINGS
@given(st.binary(max_size=400))
def test_extract_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    article = extract(data)
    assert isinstance(article.text, str)
    assert_safe_html(article.html)


@PROPERTY_SETTINGS
@given(st.text(max_size=300))
def test_extract_never_raises_on_arbitrary_text(data: str) -> None:
    assert isinstance(extract(data).text, str)


@PROPERTY_SETTINGS
@given(html_pages)
def test_clean_html_of_any_element_is_safe_and_reparses(html: str) -> None:
    tree = lxml.html.document_fromstring(html)
    elements = [node for node in tree.iter() if isinstance(node.tag, str)][:8]
    rendered = render_clean_html(elements, base_url="https://ex.com/")
    assert_safe_html(rendered)
    if rendered:
        reparsed = lxml.html.fragment_fromstring(rendered, create_parent="div")
        assert_tokens_from_page(" ".join(reparsed.itertext()), page_text(html))
