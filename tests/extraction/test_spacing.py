"""Block text is spaced as the markup is: inline elements join without inserted spaces."""

from __future__ import annotations

import pytest

from newscrawl.extraction import document as document_module
from newscrawl.extraction import extract
from newscrawl.extraction.document import COMPILED_WALK, Document, parse_tree

WALKS = ["python", "compiled"] if COMPILED_WALK else ["python"]


def block_texts(html: str, walk: str) -> list[str]:
    """The segment texts of a page, from the Python or the compiled walk."""
    document = Document(tree=parse_tree(html), url=None, pieces=[], segments=[], piece_range={})
    if walk == "python":
        document_module._index_text(document)
    else:
        from newscrawl.extraction._node_walk import index_text

        assert index_text(document, document_module.SKIPPED_TAGS, document_module.BLOCK_TAGS)
    return [segment.text for segment in document.segments]


@pytest.mark.parametrize("walk", WALKS)
@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            "<p>According to <a>The Wall Street Journal</a>, on <b>Monday</b>."
            " Amazon (<a>AMZN</a>) rose.</p>",
            ["According to The Wall Street Journal, on Monday. Amazon (AMZN) rose."],
        ),
        # Whitespace between inline elements is the only space there, however it is written.
        ("<p><b>one</b> <i>two</i>\n<i>three</i>&nbsp;<i>four</i><i>five</i></p>",
         ["one two three fourfive"]),
        # Unspaced scripts: no space appears inside a CJK sentence around inline elements.
        ("<p>東京<a href=/t>では</a>桜<b>が</b>咲いています。</p>", ["東京では桜が咲いています。"]),
        ("<p>北京<span>今天</span><em>天气</em>很好</p>", ["北京今天天气很好"]),
        # Invisible elements between two words do not join them when the source spaced them.
        ("<p>word<script>x()</script> next <img src=a.png> last</p>", ["word next last"]),
        # Block boundaries still separate, with or without whitespace around them.
        ("<div><span>left</span><p>middle</p><span>right</span></div>",
         ["left", "middle", "right"]),
        ("<p>line<br>break</p><ul><li>a</li><li>b</li></ul>", ["line", "break", "a", "b"]),
    ],
)
def test_blocks_are_spaced_as_the_markup(html: str, expected: list[str], walk: str) -> None:
    assert block_texts(html, walk) == expected


def test_the_article_text_keeps_punctuation_against_inline_elements() -> None:
    html = (
        "<html><head><title>Amazon rose on Monday</title></head><body><article>"
        "<p>According to <a href=/wsj>The Wall Street Journal</a>, on <b>Monday</b>. Amazon"
        " (<a href=/q>AMZN</a>) rose after the company said its <i>cloud</i> business grew.</p>"
        "<p>The shares of <a href=/amzn>Amazon</a>, which had fallen for a week, rose by"
        " <b>four</b> per cent in early trading in New York on Monday morning.</p>"
        "</article></body></html>"
    )
    text = extract(html).text
    assert "According to The Wall Street Journal, on Monday. Amazon (AMZN) rose" in text
    assert "The shares of Amazon, which had fallen" in text
