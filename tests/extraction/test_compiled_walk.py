"""The compiled text walk is built, active, and fills Documents exactly as the Python walk does."""

from __future__ import annotations

import gc

import lxml.etree
import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newscrawl.extraction import block_features
from newscrawl.extraction import document as document_module
from newscrawl.extraction.block_hints import TAG_FLAGS, marker_flags
from newscrawl.extraction.document import (
    BLOCK_TAGS,
    SKIPPED_TAGS,
    Document,
    parse_document,
    parse_tree,
)
from tests.extraction.compiled_twins import needs_compiled_loops
from tests.extraction.test_properties import PROPERTY_SETTINGS, html_pages

pytestmark = needs_compiled_loops

TRICKY_PAGES = [
    # Nested links: the parser splits them, a tail after the inner one stays in the outer.
    "<p><a href=/o>out <b><a href=/i>in</a> after</b> end</a> tail</p>",
    # Text after skipped subtrees, and inside them.
    "<div>a<script>var x = '<p>no</p>';</script>tail one<style>p{}</style> tail two"
    "<svg><text>hidden</text></svg>svg tail<select><option>o</option></select>sel tail</div>",
    # Text directly in <html> and <body>, before and after the body.
    "<html>top text<head><title>T</title></head>head tail<body>body text<p>p</p>after p"
    "</body>after body</html>after html",
    # CDATA-like markup, comments and processing instructions splitting text runs.
    "<p>before<![CDATA[inside cdata]]>after</p><p>a<!-- c -->b<?pi x?>c</p>",
    # A second root after `</html>`: its comments survive the comment stripping.
    "<html><body><p>one</p></body></html><html><body>two<!-- c -->three<p>x<!--c-->y</p>"
    "</body></html>",
    # Entities, named, numeric and unknown.
    "<p>&amp; &lt;tag&gt; &#106;&#x3c; &nbsp;&bogus; &copy; & alone</p>",
    # Empty and missing hrefs, with and without a doctype.
    "<!DOCTYPE html><p><a href>empty</a> <a href=''>quoted</a> <a name=x>named</a>"
    " <a id=y href=/z>real</a> <A HREF=/up>upper</A></p>",
    "<p><a href>empty</a> <a name=x>named</a></p>",
    # <br> is a block: every line is its own segment.
    "<p>line one<br>line two<br/>line three<br><b>bold</b> four</p>",
    # Deep nesting.
    "<div>" * 120 + "deep" + "<span>" * 120 + "deeper" + "</span>" * 120 + "</div>" * 120,
    # Non-ASCII text, and whitespace that only str.isspace() knows about.
    "<p>café naïve 中文 日本語</p><p>\u00a0</p><p>\u3000\u2028 </p><p>\u00a0x\u00a0</p>"
    "<div>\u2003<span>\u00a0</span>\u00a0</div>",
    # Whitespace-only pieces between blocks and inline elements.
    "<div> <p> </p>\n\t<span> \r\n </span> <b>word</b> \n</div>",
    # Odd tag names the HTML parser keeps as they are.
    "<my-tag>custom</my-tag><svg:rect>prefixed</svg:rect><ns:a href=/x>pseudo link</ns:a>"
    "<x_y>under</x_y>",
    # Unclosed media and void elements whose content parse_tree hoists.
    "<p>a<embed src=x>swallowed text<video>" + "long fallback " * 30 + "</p>",
    # Class and id hints on blocks and their ancestors, empty and repeated values.
    "<div class='Main content' id=wrap><nav class=menu><ul><li class=''>item</li></ul></nav>"
    "<article id=story><p class='byline credit'>by A</p><p class=x id=''>text</p></article>"
    "<table class=sidebar><tr><td id=Side>cell</td></tr></table><footer>f</footer></div>",
    # Inline content with no block at all below <html>.
    "plain text only",
    "",
    "<table><tr><td>cell <a href=/c>link</a> tail</td><td></td></tr></table>tail",
    # Inline elements joined as the markup joins them; blank runs (ASCII, NBSP, CDATA, empty
    # elements' tails) between them, and at a block's edges.
    "<p>According to <a href=/w>The Wall Street Journal</a>, on <b>Monday</b>. Amazon"
    " (<a>AMZN</a>) rose.</p><p><b>a</b> <i>b</i>\u00a0<i>c</i><![CDATA[ ]]><i>d</i><br>e</p>",
    "<p>東京<a href=/t>では</a>桜<b>が</b><span></span>咲いています<img src=x> <b>。</b></p>"
    "<div><span>x</span> <p>y</p> <span>z</span> </div>",
]


def walk_both(tree: lxml.html.HtmlElement) -> tuple[bool, Document, Document]:
    """The same tree indexed by the compiled and by the Python walk."""
    from newscrawl.extraction._node_walk import index_text

    compiled = Document(tree=tree, url=None, pieces=[], segments=[], piece_range={})
    python = Document(tree=tree, url=None, pieces=[], segments=[], piece_range={})
    done = index_text(compiled, SKIPPED_TAGS, BLOCK_TAGS)
    document_module._index_text(python)
    return done, compiled, python


def assert_same_document(compiled: Document, python: Document) -> None:
    """Every field the walk fills is equal, and every element is the same proxy."""
    assert len(compiled.pieces) == len(python.pieces)
    for mine, theirs in zip(compiled.pieces, python.pieces, strict=True):
        assert type(mine.text) is str and mine.text == theirs.text
        assert mine.element is theirs.element
        assert type(mine.in_link) is bool and mine.in_link is theirs.in_link
        assert mine.segment == theirs.segment
    assert len(compiled.segments) == len(python.segments)
    for mine_segment, theirs_segment in zip(compiled.segments, python.segments, strict=True):
        assert mine_segment.block is theirs_segment.block
        assert (
            mine_segment.index,
            mine_segment.first_piece,
            mine_segment.last_piece,
            mine_segment.node,
            mine_segment.text,
        ) == (
            theirs_segment.index,
            theirs_segment.first_piece,
            theirs_segment.last_piece,
            theirs_segment.node,
            theirs_segment.text,
        )
    # Same keys in the same insertion order, each the same proxy, with the same ranges: the
    # compiled walk's view answers every Mapping question as the Python walk's dict does.
    assert list(compiled.piece_range.values()) == list(python.piece_range.values())
    for mine_key, theirs_key in zip(compiled.piece_range, python.piece_range, strict=True):
        assert mine_key is theirs_key
    assert compiled.piece_range == python.piece_range
    assert len(compiled.piece_range) == len(python.piece_range)
    assert compiled.piece_range.items() == list(python.piece_range.items())
    for element in python.node_elements:
        assert (element in compiled.piece_range) is (element in python.piece_range)
        assert compiled.piece_range.get(element, (0, 0)) == python.piece_range.get(element, (0, 0))
        if element in python.piece_range:
            assert compiled.piece_range[element] == python.piece_range[element]
        else:
            with pytest.raises(KeyError):
                compiled.piece_range[element]
    assert len(compiled.node_elements) == len(python.node_elements)
    for mine_element, theirs_element in zip(
        compiled.node_elements, python.node_elements, strict=True
    ):
        assert mine_element is theirs_element
    assert compiled.node_parents == python.node_parents
    assert compiled.node_starts == python.node_starts
    assert compiled.node_ends == python.node_ends


def assert_same_walk(tree: lxml.html.HtmlElement) -> None:
    done, compiled, python = walk_both(tree)
    assert done
    assert_same_document(compiled, python)


@pytest.mark.parametrize("html", TRICKY_PAGES)
def test_compiled_walk_equals_the_python_walk_on_tricky_pages(html: str) -> None:
    assert_same_walk(parse_tree(html))


@pytest.mark.parametrize("html", TRICKY_PAGES)
def test_parse_document_gives_the_python_walks_document(html: str) -> None:
    parsed = parse_document(html)
    python = Document(tree=parsed.tree, url=None, pieces=[], segments=[], piece_range={})
    document_module._index_text(python)
    assert_same_document(parsed, python)


def test_trees_built_by_hand_walk_alike() -> None:
    # Shapes the HTML parser never makes: nested links, namespaced tags, CDATA, split text.
    root = lxml.html.document_fromstring("<html><body><div>start</div></body></html>")
    body = root.find("body")
    outer = lxml.etree.SubElement(body, "a", href="/outer")
    outer.text = "outer "
    inner = lxml.etree.SubElement(outer, "a", href="")
    inner.text = "inner"
    inner.tail = " outer again"
    outer.tail = "after links"
    namespaced = lxml.etree.SubElement(body, "{urn:x}a", href="/ns")
    namespaced.text = "namespaced"
    namespaced_skip = lxml.etree.SubElement(body, "{urn:x}script")
    namespaced_skip.text = "visible: the tag is not plain script"
    cdata = lxml.etree.SubElement(body, "p")
    cdata.text = lxml.etree.CDATA("cdata text")
    split = lxml.etree.SubElement(body, "p")
    split.text = "first half "
    split.append(lxml.etree.Comment("c"))
    split[0].tail = "second half"
    lxml.etree.strip_tags(split, lxml.etree.Comment)  # leaves two adjacent text nodes
    assert split.text == "first half second half"
    assert_same_walk(root)


def test_very_deep_trees_walk_alike() -> None:
    root = lxml.html.document_fromstring("<html><body></body></html>")
    parent = root.find("body")
    for depth in range(3000):
        parent = lxml.etree.SubElement(parent, "div" if depth % 2 else "a", href="/d")
        parent.text = f"level {depth}" if depth % 3 else " "
        parent.tail = "tail" if depth % 5 else None
    assert_same_walk(root)


def test_entity_references_are_declined_and_parse_falls_back() -> None:
    root = lxml.html.document_fromstring("<html><body><p>a</p></body></html>")
    root.find("body/p").append(lxml.etree.Entity("amp"))
    done, compiled, python = walk_both(root)
    assert not done
    assert compiled.pieces == [] and compiled.node_elements == []
    assert python.node_elements  # the Python walk handles it


@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_walk_equals_the_python_walk_on_generated_pages(html: str) -> None:
    assert_same_walk(parse_tree(html))


def assert_same_ancestor_flags(document: Document) -> None:
    """The compiled climb gives the Python climb's flags, from any order of nodes."""
    from newscrawl.extraction._node_walk import FlagMemo, ancestor_flags

    every = list(range(len(document.node_parents)))
    blocks = [segment.node for segment in document.segments]
    # One memo of each kind shared by all the calls, as a page's calls share the Document's.
    memo = FlagMemo(len(document.node_parents))
    python_memo = block_features.FlagMemo(len(document.node_parents))
    for nodes in (blocks[::-1], every, every[::-1], blocks, [], [-1, 0, -5]):
        expected = block_features._ancestor_flags(document, nodes)
        found = ancestor_flags(
            document.node_elements, document.node_parents, nodes, TAG_FLAGS, marker_flags
        )
        assert found == expected
        assert block_features._ancestor_flags(document, nodes, python_memo) == expected
        shared = ancestor_flags(
            document.node_elements, document.node_parents, nodes, TAG_FLAGS, marker_flags, memo
        )
        assert shared == expected


@pytest.mark.parametrize("html", TRICKY_PAGES)
def test_compiled_ancestor_flags_equal_the_python_climb_on_tricky_pages(html: str) -> None:
    assert_same_ancestor_flags(parse_document(html))


def test_compiled_ancestor_flags_reject_what_the_python_climb_rejects() -> None:
    from newscrawl.extraction._node_walk import ancestor_flags

    document = parse_document("<p>x</p>")
    missing = [*document.node_elements[:-1], None]
    with pytest.raises(TypeError):  # the Python climb: AttributeError
        ancestor_flags(missing, document.node_parents, [len(missing) - 1], TAG_FLAGS, marker_flags)
    beyond = [len(document.node_parents)]
    with pytest.raises(IndexError):
        block_features._ancestor_flags(document, beyond)
    with pytest.raises(IndexError):
        ancestor_flags(
            document.node_elements, document.node_parents, beyond, TAG_FLAGS, marker_flags
        )


def test_ancestor_flag_memos_refuse_another_page() -> None:
    from newscrawl.extraction._node_walk import FlagMemo, ancestor_flags

    document = parse_document("<div class='x'><p>x</p></div>")
    count = len(document.node_parents)
    with pytest.raises(ValueError):
        block_features._ancestor_flags(document, [0], block_features.FlagMemo(count + 1))
    with pytest.raises(ValueError):
        ancestor_flags(
            document.node_elements, document.node_parents, [0], TAG_FLAGS, marker_flags,
            FlagMemo(count + 1),
        )


@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_ancestor_flags_equal_the_python_climb_on_generated_pages(html: str) -> None:
    assert_same_ancestor_flags(parse_document(html))


# Every character `str.split()` splits on, and a few that look like space but are not.
_SPACES = "".join(chr(code) for code in range(0x3001) if chr(code).isspace())
piece_texts = st.lists(
    st.text(
        alphabet=st.one_of(
            st.sampled_from(_SPACES + "\u200b\ufeff\u00ad"),
            st.characters(exclude_categories=["Cs"]),
            st.sampled_from("ab 1"),
        ),
        max_size=30,
    ),
    max_size=6,
)


@PROPERTY_SETTINGS
@given(piece_texts, st.data())
def test_joined_text_joins_and_splits_as_python_does(texts: list[str], data: st.DataObject) -> None:
    from newscrawl.extraction._node_walk import joined_text

    first = data.draw(st.integers(0, len(texts)))
    last = data.draw(st.integers(first, len(texts)))
    joined = joined_text(texts, first, last)
    expected = document_module.joined_text(texts, first, last)
    assert expected == " ".join("".join(texts[first:last]).split())
    # CPython's `==` is False between equal text in two storage widths: this also checks that
    # the result takes the narrowest one, as every other str does.
    assert type(joined) is str and joined == expected


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["a", "b"], "ab"),  # a piece boundary is no space: the markup has none
        (["(", "AMZN", ")"], "(AMZN)"),
        (["a ", "b"], "a b"),
        ([" a\u00a0\u2028", "\u3000", "b\x1f "], "a b"),
        (["\u00e9t\u00e9", " x"], "\u00e9t\u00e9 x"),
        (["\u6771\u4eac", "\u3067\u306f"], "\u6771\u4eac\u3067\u306f"),
        (["\u4e2d\u3000", "\U0001f600"], "\u4e2d \U0001f600"),
        (["  ", "\t"], ""),
    ],
)
def test_joined_text_examples(texts: list[str], expected: str) -> None:
    from newscrawl.extraction._node_walk import joined_text

    assert joined_text(texts, 0, len(texts)) == expected
    assert document_module.joined_text(texts, 0, len(texts)) == expected


def test_joined_text_refuses_what_is_not_text_and_ranges_a_slice_would_clamp() -> None:
    from newscrawl.extraction._node_walk import joined_text

    class Text(str):
        pass

    assert joined_text([Text(" a "), Text("b")], 0, 2) == "a b"
    assert joined_text([Text(" a"), Text("b")], 0, 2) == "ab"
    with pytest.raises(TypeError):
        joined_text(["a", None], 0, 2)  # type: ignore[list-item]
    with pytest.raises(TypeError):
        joined_text(["a", b"b"], 0, 2)  # type: ignore[list-item]
    for first, last in ((0, 2), (1, 0), (-1, 1)):
        with pytest.raises(IndexError):
            joined_text(["a"], first, last)


def test_compiled_ancestor_flags_read_dtd_defaults_and_entity_values_as_lxml_does() -> None:
    # The compiled climb reads class and id in place, unless a DTD may supply a default or a
    # value is more than one text node: then it asks lxml, as the Python climb does.
    parser = lxml.etree.XMLParser(resolve_entities=False, attribute_defaults=False)
    xml = (
        b'<!DOCTYPE html [<!ATTLIST p class CDATA "sidebar"><!ENTITY e "sto">]>'
        b'<html><body><div class="&e;ry"><p>default class</p></div>'
        b'<div id="story"><p class="">empty</p><p class="story">own</p></div></body></html>'
    )
    root = lxml.etree.fromstring(xml, parser)
    assert root.find("body/div/p").get("class") == "sidebar"  # the DTD's default
    document = Document(tree=root, url=None, pieces=[], segments=[], piece_range={})
    document_module._index_text(document)
    assert_same_ancestor_flags(document)
    # Entities declared but no attributes: values are read in place, but one made of several
    # nodes (text and an entity reference) is read by lxml.
    entities = lxml.etree.fromstring(
        b'<!DOCTYPE html [<!ENTITY e "side">]><html><body><div class="&e;bar"><p>x</p></div>'
        b'<div class="story"><p id="&e;">y</p><p id="main">z</p></div></body></html>',
        parser,
    )
    assert entities.find("body/div").get("class") == "sidebar"
    document = Document(tree=entities, url=None, pieces=[], segments=[], piece_range={})
    document_module._index_text(document)
    assert_same_ancestor_flags(document)
    # Without any DTD the attributes are read in place: value-less, empty and repeated ones.
    html_root = lxml.html.document_fromstring(
        '<div class="nav"><p>no default</p></div><div id="story"><p class="story">x</p></div>'
        '<p class="story">again</p><p id="nav">repeated</p><p class>valueless</p>'
        '<div class=""><p id>bare</p></div>'
    )
    assert_same_ancestor_flags(parse_document(lxml.html.tostring(html_root)))


def test_the_walk_makes_the_compiled_piece_and_segment_types() -> None:
    from newscrawl.extraction import _node_walk

    assert document_module.TextPiece is _node_walk.TextPiece
    assert document_module.Segment is _node_walk.Segment
    document = parse_document("<p>one <a href=/x>two</a></p><div>three</div>")
    assert [type(piece) for piece in document.pieces] == [_node_walk.TextPiece] * 3
    assert [type(segment) for segment in document.segments] == [_node_walk.Segment] * 2
    # What the garbage collector need not trace: each page makes hundreds of them.
    assert not any(gc.is_tracked(item) for item in [*document.pieces, *document.segments])


def test_compiled_pieces_and_segments_have_the_dataclasses_fields_and_behaviour() -> None:
    element = lxml.html.fragment_fromstring("<p>x</p>")
    piece = document_module.TextPiece("x", element, True, 3)
    assert (piece.text, piece.element, piece.in_link, piece.segment) == ("x", element, True, 3)
    assert type(piece.in_link) is bool
    assert piece == piece and piece != document_module.TextPiece("x", element, True, 3)
    piece.segment = 4
    piece.text = "y"
    assert (piece.text, piece.segment) == ("y", 4)
    assert repr(piece).startswith("TextPiece(text='y', element=<Element p")
    segment = document_module.Segment(index=1, block=element, first_piece=2, last_piece=5, node=7)
    assert (segment.index, segment.block, segment.first_piece, segment.last_piece) == (
        1,
        element,
        2,
        5,
    )
    assert (segment.node, segment.text) == (7, "")
    segment.last_piece = 6
    segment.text = "joined"
    assert (segment.last_piece, segment.text) == (6, "joined")
    assert "text='joined'" in repr(segment)
    with pytest.raises(AttributeError):
        segment.extra = 1  # type: ignore[attr-defined]  # slotted, as the dataclass
    with pytest.raises(TypeError):
        document_module.Segment(0, element, 0, 0)  # type: ignore[call-arg]
    # Only lxml elements (or None) go in the element fields: nothing that could lead back to
    # a piece, which the garbage collector does not trace.
    with pytest.raises(TypeError):
        document_module.TextPiece("x", [piece], False, 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        segment.block = {"piece": piece}  # type: ignore[assignment]


NAMED_BODY_PAGES = [
    # Names in any case and separator, whole or part of a class list, on ids, and ones that
    # only start like a body name.
    "<div class='post hentry'><div class='Post-Body ENTRY_content'><p>a</p><p>b</p></div></div>"
    "<div id=storyText><p>c</p></div><div class='entry-content-footer'><p>d</p></div>"
    "<div class='xarticlebody'><p>e</p></div><div class='article'><p>f</p></div>",
    # itemprop with any value, and names too far above every block to be asked.
    "<div itemprop=articleBody><p>a</p></div><div itemprop=name><p>b</p></div>"
    "<div class=entry-content><div><div><div><div><div><p>deep</p></div></div></div></div>"
    "</div></div>",
    # Two named bodies side by side, nested ones, and a name on a block itself.
    "<div class=entry-content><p>one</p></div><div class=entry-content><p>two</p></div>"
    "<section class=article-body><div class=story-body><p>in</p></div></section>"
    "<p class=post-text>block<br>lines</p>",
]


def assert_same_named_body_candidates(document: Document) -> None:
    """The compiled search keeps every candidate the Python test accepts, in walk order."""
    from newscrawl.extraction import container_fill
    from newscrawl.extraction._node_walk import named_body_candidates

    python = container_fill._body_candidates(document)
    nodes = [segment.node for segment in document.segments]
    found = named_body_candidates(
        document.node_elements, document.node_parents, nodes, container_fill._BODY_NAME_DEPTH
    )
    assert found is not None
    assert found == sorted(set(found)) and set(found) <= set(python)

    def is_named(node: int) -> bool:
        element = document.node_elements[node]
        return any(
            container_fill._is_body_name(element.get(name) or "") for name in ("class", "id")
        ) or (element.get("itemprop") == "articleBody")

    assert [node for node in found if is_named(node)] == [
        node for node in python if is_named(node)
    ]


@pytest.mark.parametrize("html", TRICKY_PAGES + NAMED_BODY_PAGES)
def test_compiled_named_body_candidates_keep_what_the_python_test_accepts(html: str) -> None:
    document = parse_document(html)
    assert_same_named_body_candidates(document)


def test_named_body_candidates_find_the_named_elements() -> None:
    from newscrawl.extraction._node_walk import named_body_candidates

    document = parse_document(NAMED_BODY_PAGES[1])
    nodes = [segment.node for segment in document.segments]
    found = named_body_candidates(document.node_elements, document.node_parents, nodes, 4)
    assert [document.node_elements[node].get("itemprop") for node in found] == [
        "articleBody",
        "name",
    ]
    # The deep body's name is six levels above its paragraph: asked only with a depth of 6.
    assert named_body_candidates(document.node_elements, document.node_parents, nodes, 5) == found
    deeper = named_body_candidates(document.node_elements, document.node_parents, nodes, 6)
    assert len(deeper) == 3
    with pytest.raises(IndexError):
        named_body_candidates(document.node_elements, document.node_parents, [10**6], 4)


def test_named_body_candidates_leave_dtd_declared_attributes_to_python() -> None:
    from newscrawl.extraction._node_walk import named_body_candidates

    parser = lxml.etree.XMLParser(resolve_entities=False, attribute_defaults=False)
    root = lxml.etree.fromstring(
        b'<!DOCTYPE html [<!ATTLIST div class CDATA "entry-content">]>'
        b"<html><body><div><p>default class</p></div></body></html>",
        parser,
    )
    document = Document(tree=root, url=None, pieces=[], segments=[], piece_range={})
    document_module._index_text(document)
    nodes = [segment.node for segment in document.segments]
    assert named_body_candidates(document.node_elements, document.node_parents, nodes, 4) is None


@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_named_body_candidates_keep_what_python_accepts_on_generated_pages(
    html: str,
) -> None:
    assert_same_named_body_candidates(parse_document(html))
