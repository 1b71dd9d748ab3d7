"""The compiled metadata scan is built, active, and finds what metadata's Python searches find."""

from __future__ import annotations

import lxml.etree
import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newscrawl.extraction.document import parse_document, parse_tree
from newscrawl.extraction.metadata import (
    _AUTHOR_ATTRIBUTES,
    _MARKED_DATES,
    MarkedElements,
    _is_byline_marker,
    _is_date_marker,
    extract_metadata,
    index_tags,
    page_index,
    scan_elements,
)
from newscrawl.extraction.tag_sets import BYLINE_TAGS, DATE_LINE_TAGS, MARKED_TAGS
from tests.extraction.compiled_twins import needs_compiled_loops
from tests.extraction.test_properties import PROPERTY_SETTINGS, html_pages

TRICKY_PAGES = [
    # Markers in any case, in class or id, inside longer words; noise words veto them.
    "<div class='BYLINE'>By Ann Lee</div><span id='story-Author-name'>Bo Li</span>"
    "<p class='WrItEr x'>Cy Do</p><li class='comment-author'>No Body</li>"
    "<a id=contributors class='Photo'>Di Ma</a><address class=reporter>Ed Ng</address>"
    "<section class=byline>not a byline tag</section><span class=''>empty</span>"
    # Date lines: h2-h4 and ul are date tags only, `a` and `address` byline tags only.
    "<h3 class='story-DATE'>June 30, 2013</h3><a class=timestamp>x</a><ul id=posted-on></ul>"
    "<address class='byline date'>By Fay Wu, May 2, 2011</address><h2 class=byline>no</h2>",
    # Non-ASCII look-alikes: 'İ' lowers to two characters, the Kelvin sign to 'k'.
    "<span class='BYLİNE'>x</span><span class='authoř'>y</span><p id='wrİter'>z</p>"
    "<div class='ａｕｔｈｏｒ'>fullwidth</div><div class='\u212aauthor'>kelvin</div>",
    # Attribute marks on any element, one entry per element, in document order.
    "<head><link rel=author href=/a><meta itemprop=author content='Ann Lee'></head><body>"
    "<a rel=author itemprop=author href=/b>Bo Li</a><a rel='author me'>no</a>"
    "<span itemprop=Author>case matters</span><fb:like rel=author>prefixed</fb:like></body>",
    # Date marks: itemprop datePublished anywhere, and only <time> counts pubdate.
    "<body><div itemprop=datePublished content=2020-01-02>a</div><time pubdate>b</time>"
    "<time datetime=2020-03-04>c</time><span pubdate>no</span>"
    "<time itemprop=datePublished pubdate datetime=2021-01-01>both</time></body>",
    # A second root after </html>: the XPaths see it, root.iter does not.
    "<html><head><title>T</title></head><body><p>one</p></body></html>"
    "<html><body><a rel=author>Late Author</a><time pubdate>x</time>"
    "<span class=byline>By Late Byline</span><meta name=author content=x></body></html>",
    # Entities in attribute values are decoded by the parser before anyone reads them.
    "<span class='by&#108;ine'>By Eve Ong</span><a rel='&#97;uthor'>Fay Wu</a>",
    # Every indexed tag, in head and body, and an SVG title.
    "<html><head><title>A | B</title><meta property=og:title content=X>"
    "<script type='application/ld+json'>{}</script><link rel=canonical href=/c></head>"
    "<body><svg><title>icon</title></svg><h1>H</h1><time>t</time><figure><img src=/i>"
    "</figure><script>var a;</script><meta name=x content=y></body></html>",
    "",
    "plain text only",
]


def python_scan(root: lxml.html.HtmlElement) -> MarkedElements:
    """What the Python searches find; `bylines` holds exactly the accepted elements."""
    authors: list[lxml.html.HtmlElement] = []
    for attribute in _AUTHOR_ATTRIBUTES(root):
        if attribute.getparent() not in authors:
            authors.append(attribute.getparent())
    bylines = [e for e in root.iter(*MARKED_TAGS) if accepted_marker(e)]
    return MarkedElements(index_tags(root), authors, _MARKED_DATES(root), bylines)


def accepted_marker(element: lxml.html.HtmlElement) -> bool:
    """Whether metadata reads the element as a byline or as a date line."""
    return (element.tag in BYLINE_TAGS and _is_byline_marker(element)) or (
        element.tag in DATE_LINE_TAGS and _is_date_marker(element)
    )


def assert_same_elements(found: list[lxml.html.HtmlElement], expected: list[object]) -> None:
    assert len(found) == len(expected)
    for mine, theirs in zip(found, expected, strict=True):
        assert mine is theirs


def assert_same_scan(root: lxml.html.HtmlElement) -> None:
    compiled = scan_elements(root)
    assert compiled is not None
    expected = python_scan(root)
    assert list(compiled.tags) == list(expected.tags)
    for tag, elements in compiled.tags.items():
        assert_same_elements(elements, expected.tags[tag])
    assert_same_elements(compiled.authors, expected.authors)
    assert_same_elements(compiled.dates, expected.dates)
    # Candidates: a superset of the accepted bylines and date lines, in the order root.iter
    # gives them.
    order = {element: index for index, element in enumerate(root.iter(*MARKED_TAGS))}
    positions = [order[element] for element in compiled.bylines]
    assert positions == sorted(set(positions))
    accepted = [element for element in compiled.bylines if accepted_marker(element)]
    assert_same_elements(accepted, expected.bylines)


def assert_same_metadata(root: lxml.html.HtmlElement, monkeypatch: pytest.MonkeyPatch) -> None:
    url = "https://example.com/news/story"
    compiled = extract_metadata(root, url)
    with monkeypatch.context() as patch:
        patch.setattr(page_index, "_compiled_scan", None)
        assert scan_elements(root) is None
        assert extract_metadata(root, url) == compiled


def raw_root(html: str) -> lxml.html.HtmlElement:
    """lxml's own tree, stray roots beside `<html>` included (parse_tree moves their content)."""
    return lxml.html.document_fromstring(html or "<html></html>")


@needs_compiled_loops
@pytest.mark.parametrize("html", TRICKY_PAGES)
def test_compiled_scan_equals_the_python_searches_on_tricky_pages(html: str) -> None:
    assert_same_scan(parse_tree(html).getroottree().getroot())
    assert_same_scan(raw_root(html))


@pytest.mark.parametrize("html", TRICKY_PAGES)
def test_metadata_is_the_same_with_and_without_the_scan(
    html: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_same_metadata(parse_document(html).tree, monkeypatch)
    assert_same_metadata(raw_root(html), monkeypatch)


@needs_compiled_loops
def test_the_scan_finds_late_roots_and_marked_bylines() -> None:
    root = raw_root(TRICKY_PAGES[4])
    assert len([sibling for sibling in root.itersiblings()]) == 1
    found = scan_elements(root)
    assert found is not None
    assert [element.text for element in found.authors] == ["Late Author"]
    assert [element.text for element in found.dates] == ["x"]
    assert found.bylines == [] and found.tags["meta"] == []
    assert extract_metadata(root, None).authors == ["Late Author"]


@needs_compiled_loops
def test_trees_built_by_hand_scan_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    # Shapes the HTML parser never makes: namespaced tags and attributes.
    root = lxml.html.document_fromstring("<html><body><p>start</p></body></html>")
    body = root.find("body")
    lxml.etree.SubElement(body, "{urn:x}span", {"class": "byline"}).text = "By Ns Span"
    lxml.etree.SubElement(body, "{urn:x}time", pubdate="").text = "2020-01-01"
    lxml.etree.SubElement(body, "{urn:x}meta", name="author", content="Ns Meta")
    lxml.etree.SubElement(body, "{urn:x}b", itemprop="datePublished", content="2021-02-03")
    lxml.etree.SubElement(body, "a", {"{urn:y}rel": "author"}).text = "Ns Attribute"
    lxml.etree.SubElement(body, "span", {"{urn:y}class": "byline"}).text = "By Ns Class"
    lxml.etree.SubElement(body, "{urn:x}a", rel="author").text = "Ns Element"
    assert_same_scan(root)
    assert_same_metadata(root, monkeypatch)


def test_entity_references_are_declined_and_metadata_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = lxml.html.document_fromstring("<html><body><p class=byline>By Al Bo</p></body></html>")
    root.find("body/p").append(lxml.etree.Entity("amp"))
    assert scan_elements(root) is None
    assert extract_metadata(root, None).authors == ["Al Bo"]
    assert_same_metadata(root, monkeypatch)


def test_attribute_defaults_from_a_dtd_are_declined() -> None:
    # `get` sees a DTD's default attribute values; the scan reads only those set on elements.
    page = (
        b'<?xml version="1.0"?><!DOCTYPE html [<!ATTLIST span class CDATA "byline">]>'
        b"<html><body><span>By Di Wu</span></body></html>"
    )
    parser = lxml.etree.XMLParser()
    parser.set_element_class_lookup(lxml.html.HtmlElementClassLookup())
    root = lxml.etree.fromstring(page, parser)
    assert root.find("body/span").get("class") == "byline"
    assert scan_elements(root) is None


MARKERS = st.sampled_from(
    [
        "byline",
        "BYLINE",
        "Author",
        "aUtHoR",
        "writer",
        "contributor",
        "REPORTER",
        "comment",
        "photo",
        "bio",
        "nav",
        "",
        "by line",
        "autho",
        "İ",
        "\u212a",
        "é",
    ]
)
ATTRIBUTE_VALUES = st.lists(MARKERS, max_size=3).map("-".join)
TAGS = st.sampled_from(
    ["span", "div", "p", "a", "address", "li", "time", "meta", "section", "h1", "figure", "b"]
)


@st.composite
def marked_elements(draw: st.DrawFn) -> str:
    """An element with byline-ish class and id, rel, itemprop or pubdate attributes."""
    tag = draw(TAGS)
    attributes = []
    for name in ("class", "id", "rel", "itemprop", "pubdate"):
        if draw(st.booleans()):
            value = draw(
                st.sampled_from(["author", "datePublished", "Author", "nofollow"])
                if name in {"rel", "itemprop"}
                else ATTRIBUTE_VALUES
            )
            attributes.append(f'{name}="{value}"')
    inner = draw(st.sampled_from(["", "By Ann Lee", "<span class=byline>By Bo Li</span>"]))
    return f"<{tag} {' '.join(attributes)}>{inner}</{tag}>"


marked_pages = st.builds(
    lambda parts, tail: "<html><body>" + "".join(parts) + "</body></html>" + tail,
    st.lists(marked_elements(), max_size=8),
    st.sampled_from(["", "<html><body><a rel=author>Late</a></body></html>"]),
)


@needs_compiled_loops
@PROPERTY_SETTINGS
@given(marked_pages)
def test_compiled_scan_equals_the_python_searches_on_marked_pages(html: str) -> None:
    assert_same_scan(parse_tree(html).getroottree().getroot())
    assert_same_scan(raw_root(html))


@needs_compiled_loops
@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_scan_equals_the_python_searches_on_generated_pages(html: str) -> None:
    assert_same_scan(parse_tree(html).getroottree().getroot())
    assert_same_scan(raw_root(html))


BODY_TEXT_PAGES = [
    # Scripts, styles, noscript and template hold no text, their tails do; comments and
    # processing instructions neither, their tails do.
    "<html><head><title>Skip</title></head><body>lead<script>var a;</script>after script"
    "<style>p{}</style> after style<!-- note -->after comment<?pi x?>after pi"
    "<template><p>inside template</p></template>after template<noscript>ns</noscript>end"
    "</body></html>text after body",
    # Whitespace runs, ASCII and not, are skipped; non-ASCII text is kept.
    "<body><p> </p><p>\u00a0</p><p>\u3000\u2028</p><p>\u00a0x\u00a0</p><div>\t\n</div>"
    "<p>café naïve 中文 日本語</p><p>\x1c\x1f</p></body>",
    # No body: the text below the root.
    "<html>top<head><title>t</title></head>mid</html>",
    # CDATA-like markup and entities.
    "<p>before<![CDATA[inside]]>after</p><p>&amp; &lt;x&gt; &#106; &nbsp;&bogus;</p>",
    # Enough text to stop early, mid-way through a long run of paragraphs.
    "<body>" + "".join(f"<p>paragraph {n} " + "words " * 40 + "</p>tail" for n in range(60)),
    "",
    "plain text only",
]


def assert_same_body_text(root: lxml.html.HtmlElement) -> None:
    from newscrawl.extraction import language
    from newscrawl.extraction._node_walk import body_text_sample

    for limit in (0, 40, language._SAMPLE_CHARS, 10**9):
        found = body_text_sample(root, language.SCRIPTING_TAGS, limit)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(language, "_SAMPLE_CHARS", limit)
            assert found == language._read_body_text_python(root)


@pytest.mark.parametrize("html", BODY_TEXT_PAGES + TRICKY_PAGES)
def test_compiled_body_text_equals_the_python_walk(html: str) -> None:
    assert_same_body_text(parse_tree(html).getroottree().getroot())
    assert_same_body_text(raw_root(html))


def test_body_text_of_trees_built_by_hand() -> None:
    from newscrawl.extraction import language
    from newscrawl.extraction._node_walk import body_text_sample

    root = lxml.html.document_fromstring("<html><body><p>start</p></body></html>")
    body = root.find("body")
    lxml.etree.SubElement(body, "{urn:x}script").text = "namespaced script text is text"
    lxml.etree.SubElement(body, "script").tail = "script tail"
    split = lxml.etree.SubElement(body, "p")
    split.text = "first half "
    split.append(lxml.etree.Comment("c"))
    split[0].tail = "second half"
    lxml.etree.strip_tags(split, lxml.etree.Comment)  # leaves two adjacent text nodes
    cdata = lxml.etree.SubElement(body, "p")
    cdata.text = lxml.etree.CDATA("cdata text")
    assert_same_body_text(root)
    root.find("body/p").append(lxml.etree.Entity("amp"))
    assert body_text_sample(root, language.SCRIPTING_TAGS, 3000) is None
    assert language._read_body_text(root) == language._read_body_text_python(root)


@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_body_text_equals_the_python_walk_on_generated_pages(html: str) -> None:
    assert_same_body_text(parse_tree(html).getroottree().getroot())
    assert_same_body_text(raw_root(html))


@needs_compiled_loops
def test_very_deep_trees_scan_alike() -> None:
    root = lxml.html.document_fromstring("<html><body></body></html>")
    parent = root.find("body")
    for depth in range(3000):
        tag = ("span", "div", "time", "section")[depth % 4]
        attributes = {"class": "Byline" if depth % 7 == 0 else "x"}
        if depth % 11 == 0:
            attributes["rel"] = "author"
        parent = lxml.etree.SubElement(parent, tag, attributes)
        parent.text = f"level {depth}"
    assert_same_scan(root)
    assert_same_body_text(root)


meta_values = st.text(alphabet=st.sampled_from(list(" \tOg:TiTlE İé\xa0x")), max_size=8)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["property", "name", "itemprop", "http-equiv", "content", "other"]),
            meta_values,
        ),
        max_size=5,
    ),
    st.integers(min_value=1, max_value=4),
)
def test_compiled_meta_contents_equal_the_python_loop(
    attributes: list[tuple[str, str]], copies: int
) -> None:
    head = "".join(
        "<meta " + " ".join(f'{name}="{value}"' for name, value in attributes[i:]) + ">"
        for i in range(min(copies, len(attributes) + 1))
    )
    root = lxml.html.document_fromstring(f"<html><head>{head}</head><body>x</body></html>")
    elements = list(root.iter("meta"))
    compiled = page_index.read_meta_tags(root, tags={"meta": elements})
    assert compiled == page_index._read_meta_tags_python(elements)
    assert list(compiled) == list(page_index._read_meta_tags_python(elements))  # same order


@needs_compiled_loops
def test_meta_contents_are_read_by_lower_cased_key_in_document_order() -> None:
    root = lxml.html.document_fromstring(
        '<html><head><meta property=" OG:Title " content=" First "><meta name=og:title '
        'content=Second><meta name=empty content="  "><meta content=nameless>'
        '<meta http-equiv=Content-Language content=fr></head><body></body></html>'
    )
    assert page_index._compiled_meta_contents is not None
    assert page_index.read_meta_tags(root) == {
        "og:title": ["First", "Second"],
        "content-language": ["fr"],
    }
