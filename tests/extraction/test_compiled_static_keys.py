"""The compiled static-noise keys are built, active, and equal the Python keying loop's."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable

import lxml.etree
import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st

from newscrawl.extraction import ExtractionConfig, learn_static_noise, static_noise
from newscrawl.extraction.document import (
    SKIPPED_TAGS,
    Document,
    TextPiece,
    _index_text,
    parse_document,
)
from tests.extraction.compiled_twins import needs_compiled_loops
from tests.extraction.test_compiled_walk import TRICKY_PAGES
from tests.extraction.test_properties import PROPERTY_SETTINGS, html_pages

pytestmark = needs_compiled_loops

CONFIGS = [ExtractionConfig(), ExtractionConfig.paper()]

ATTRIBUTE_PAGES = [
    # Sorting by name then value, volatile URL parts, digit runs, case and blanks in values.
    "<div id=b class=a data-x=3>one</div><div class=a id=b data-x=4>one</div>"
    "<a href='/p/12?utm=1#top' data-src=' /I/9.PNG?x ' SRC='#frag'>link</a>"
    "<p title='  Mixed CASE 2024  ' lang=EN>para</p>",
    # Blanks that str.strip() removes, including the ASCII separators \x1c-\x1f.
    "<p class='\x1c\x1d x \x1e\x1f' data-a='\t\n\x0b\x0cy\r'>blanks</p>",
    # Non-ASCII names and values go to the Python renderer.
    "<p class='café' title='İstanbul ǅ'>accents</p><p data-é=1>name</p>",
    # Values with '?' and '#' outside URL attributes, empty and value-less attributes.
    "<p data-q='a?b#c' action='x#y?z' srcset='a.png?1 1x'>q</p><a href>empty</a>"
    "<a href=''>quoted</a><input value=1>",
    # Many attributes, more than the compiled renderer holds.
    "<p " + " ".join(f"data-a{i}='{70 - i}'" for i in range(70)) + ">many</p>",
    # Equal names but for case, which the HTML parser folds.
    "<p CLASS=Up class=low>case</p>",
]


def _prefix_of(config: ExtractionConfig) -> Callable[[lxml.html.HtmlElement], str]:
    return lambda element: static_noise._element_prefix(element, config)


def compiled_keys(document: Document, config: ExtractionConfig) -> static_noise.KeyedNodes:
    from newscrawl.extraction._static_keys import node_keys

    return node_keys(
        document.pieces, config.normalise_attributes, static_noise._URL_NAMES, _prefix_of(config)
    )


def tree_keys(tree: lxml.html.HtmlElement, config: ExtractionConfig) -> list[int] | None:
    from newscrawl.extraction._static_keys import page_keys

    return page_keys(
        tree,
        SKIPPED_TAGS,
        config.normalise_attributes,
        static_noise._URL_NAMES,
        _prefix_of(config),
    )


def assert_same_keys(document: Document) -> None:
    """Both compiled loops give the Python loop's keys, for the default and paper configs."""
    for config in CONFIGS:
        expected = static_noise._python_keyed_nodes(document, config)
        found = compiled_keys(document, config)
        assert found[0] == expected[0]
        assert all(a is b for a, b in zip(found[0], expected[0], strict=True))
        assert found[1:] == expected[1:]
        by_tree = tree_keys(document.tree, config)
        assert by_tree is not None
        assert Counter(by_tree) == Counter(expected[1])


def test_the_inlined_blake2b_is_hashlibs() -> None:
    from newscrawl.extraction._static_keys import blake2b64

    generator = random.Random(7)
    # Around the 128-byte block size, where padding and the final-block flag matter.
    sizes = [*range(0, 300), 511, 512, 513, 4096, 100_000]
    for size in sizes:
        data = bytes(generator.getrandbits(8) for _ in range(size))
        digest = hashlib.blake2b(data, digest_size=8).digest()
        assert blake2b64(data) == int.from_bytes(digest, "little")


@pytest.mark.parametrize("html", TRICKY_PAGES + ATTRIBUTE_PAGES)
def test_compiled_keys_equal_the_python_keys_on_tricky_pages(html: str) -> None:
    assert_same_keys(parse_document(html))


def test_every_code_point_is_normalised_as_python_does() -> None:
    # Unicode spaces and decimal digits (re's `\d`), and lone surrogates, which encode as "?".
    texts = [
        "".join(chr(point) for point in range(start, min(start + 700, 0x110000)))
        for start in range(0, 0x110000, 700)
    ]
    texts += ["1\u0661\u06f2 \u00a0 \u3000x\u2028\u0e53", "\ud800\udc00", " ", "\u0660"]
    document = parse_document("<p>x</p>")
    owner = document.pieces[0].element
    # Pieces of one element exercise the join; pieces of many, the per-element keys.
    for pieces in (
        [TextPiece(text, owner, False, 0) for text in texts],
        [TextPiece(text, lxml.html.Element("p"), False, 0) for text in texts],
    ):
        document.pieces = pieces
        for config in CONFIGS:
            expected = static_noise._python_keyed_nodes(document, config)
            assert compiled_keys(document, config) == expected


def test_trees_built_by_hand_key_alike() -> None:
    root = lxml.html.document_fromstring("<html><body><div>start</div></body></html>")
    body = root.find("body")
    namespaced = lxml.etree.SubElement(body, "{urn:x}p", {"{urn:y}a": "1", "b": "2"})
    namespaced.text = "namespaced 12"
    attributed = lxml.etree.SubElement(body, "p", {"{urn:y}a": "3"})
    attributed.text = "namespaced attribute"
    cdata = lxml.etree.SubElement(body, "p")
    cdata.text = lxml.etree.CDATA("cdata 7 text")
    split = lxml.etree.SubElement(body, "p", {"class": "Split 9"})
    split.text = "first 1"
    split.append(lxml.etree.Comment("c"))
    split[0].tail = "2 second"
    lxml.etree.strip_tags(split, lxml.etree.Comment)  # leaves two adjacent text nodes
    commented = lxml.etree.SubElement(body, "p")
    commented.text = "before"
    commented.append(lxml.etree.Comment("c"))
    commented[0].tail = "after the comment: no element's text"
    lxml.etree.SubElement(commented, "b").tail = "tail 3"
    assert_same_keys(parse_document(lxml.html.tostring(root)))
    # The Python walk takes the tree as it is (the compiled one would too).
    document = Document(tree=root, url=None, pieces=[], segments=[], piece_range={})
    _index_text(document)
    assert_same_keys(document)


def test_trees_the_walk_declines_are_keyed_by_the_python_loop() -> None:
    root = lxml.html.document_fromstring("<html><body><p>a</p></body></html>")
    root.find("body/p").append(lxml.etree.Entity("amp"))
    assert tree_keys(root, CONFIGS[0]) is None


def test_learning_from_pages_equals_learning_from_their_documents() -> None:
    pages = [
        f"<html><body><div class='menu-{i}'>Menu <a href='/x?{i}'>Home</a> {i}</div>"
        f"<p>Story {i} text</p><!-- c --><p>Footer 2024</p></body></html>"
        for i in range(4)
    ]
    for config in CONFIGS:
        from_pages = learn_static_noise(pages, config)
        from_documents = learn_static_noise([parse_document(page) for page in pages], config)
        assert from_pages == from_documents


@PROPERTY_SETTINGS
@given(html_pages)
def test_compiled_keys_equal_the_python_keys_on_generated_pages(html: str) -> None:
    assert_same_keys(parse_document(html))


@PROPERTY_SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["class", "id", "href", "src", "data-src", "title", "srcset"]),
            st.text(alphabet=st.characters(exclude_categories=["Cs", "Cc"]), max_size=12),
        ),
        max_size=5,
    ),
    st.text(max_size=30),
)
def test_compiled_prefixes_equal_the_python_prefixes(
    attributes: list[tuple[str, str]], text: str
) -> None:
    element = lxml.html.Element("p")
    for name, value in attributes:
        element.set(name, value)
    document = parse_document("<p>x</p>")
    document.pieces = [TextPiece(text, element, False, 0)]
    for config in CONFIGS:
        assert compiled_keys(document, config) == static_noise._python_keyed_nodes(document, config)


@PROPERTY_SETTINGS
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=40),
    st.integers(0, 12),
    st.data(),
)
def test_compiled_supports_and_owned_pieces_equal_the_python_ones(
    keys: list[int], page_count: int, data: st.DataObject
) -> None:
    from newscrawl.extraction._static_keys import node_supports, owned_pieces

    # A template holding some of the keys (and others), each on up to page_count pages.
    held = data.draw(st.lists(st.sampled_from(keys), max_size=len(keys))) if keys else []
    counts = {key: data.draw(st.integers(1, max(page_count, 1))) for key in held}
    counts[2**63 + 5] = 1
    expected = static_noise.node_supports(keys, counts, page_count)
    found = node_supports(keys, counts, page_count)
    assert found == expected
    assert [type(value) for value in found] == [float] * len(keys)
    owners = data.draw(st.lists(st.integers(0, len(keys) - 1), max_size=60)) if keys else []
    for threshold in (0.0, 0.5 - 1e-9, 0.8 - 1e-9, 1.0, 2.0):
        assert owned_pieces(owners, found, threshold) == static_noise.owned_pieces(
            owners, expected, threshold
        )


def test_owned_pieces_refuses_an_owner_beyond_the_supports() -> None:
    from newscrawl.extraction._static_keys import owned_pieces

    with pytest.raises(IndexError):
        static_noise.owned_pieces([0, 2], [0.5, 0.9], 0.1)
    with pytest.raises(IndexError):
        owned_pieces([0, 2], [0.5, 0.9], 0.1)
    with pytest.raises(IndexError):
        owned_pieces([-1], [0.5], 0.1)  # Python would read the last: refused, not wrapped
