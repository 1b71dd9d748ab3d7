"""Pages too big to parse whole: scripts and styles dropped, and a cap on the element count."""

from __future__ import annotations

import pytest

from newscrawl.extraction import extract, page_tree
from newscrawl.extraction.document import parse_document
from newscrawl.extraction.page_tree import MAX_ELEMENTS, trim_markup

STORY = [
    f"Paragraph {n} of the harbour story says the council voted on the river plan today."
    for n in range(6)
]
ARTICLE = "<article><h1>Harbour plan approved</h1>" + "".join(f"<p>{p}</p>" for p in STORY)


def build_element_heavy_page(elements: int) -> str:
    """The article, then `elements` tiny link-list elements after it."""
    filler = "<li><a href='/t'>x</a></li>" * (elements // 2)
    return f"<html><body>{ARTICLE}</article><ul>{filler}</ul><p>Tail words.</p></body></html>"


@pytest.mark.parametrize("as_bytes", [False, True], ids=["text", "bytes"])
def test_a_page_over_the_element_cap_is_cut_and_still_an_article(as_bytes: bool) -> None:
    html = build_element_heavy_page(MAX_ELEMENTS + 20_000)
    page: str | bytes = html.encode("utf-8") if as_bytes else html
    document = parse_document(page)
    assert document.truncated
    # The cut is at the cap: the tree holds no more elements than that (plus html/head/body).
    assert sum(1 for _ in document.tree.iter()) <= MAX_ELEMENTS + 3
    assert "Tail words." not in document.tree.text_content()
    article = extract(page, title="Harbour plan approved")
    for paragraph in STORY:
        assert paragraph in article.text


def test_a_page_under_the_cap_is_whole() -> None:
    html = build_element_heavy_page(MAX_ELEMENTS - 2_000)
    document = parse_document(html)
    assert not document.truncated
    assert "Tail words." in document.tree.text_content()


SCRIPTED_PAGE = (
    "<html><head><style>p { color: red }</style>"
    '<script type="application/ld+json">{"@type": "NewsArticle"}</script>'
    '<script>window.__APP_STATE__ = {"body": "x"};</script>'
    "<script src='/app.js'></script><SCRIPT>var tracker = 1;</SCRIPT></head>"
    "<body><p>Kept<script>document.write('<b>')</script> words.</p></body></html>"
)


def test_a_page_under_the_cap_keeps_its_scripts() -> None:
    assert trim_markup(SCRIPTED_PAGE) == (SCRIPTED_PAGE, False)


def test_over_the_cap_scripts_and_styles_go_but_data_scripts_stay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(page_tree, "MAX_ELEMENTS", 6)
    trimmed, truncated = trim_markup(SCRIPTED_PAGE)
    # Six elements are left once the scripts are gone: within the cap, nothing is cut.
    assert not truncated
    assert "color: red" not in trimmed and "tracker" not in trimmed
    assert "document.write" not in trimmed and "app.js" not in trimmed
    assert '{"@type": "NewsArticle"}' in trimmed
    assert "__APP_STATE__" in trimmed
    assert trimmed.endswith("<body><p>Kept words.</p></body></html>")
    assert trim_markup(SCRIPTED_PAGE.encode("utf-8"))[0] == trimmed.encode("utf-8")


def test_a_script_tag_inside_a_comment_removes_nothing_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(page_tree, "MAX_ELEMENTS", 4)
    html = "<body><!-- <script> --><p>Visible text.</p><script>x()</script><p>More.</p></body>"
    assert trim_markup(html) == (
        "<body><!-- <script> --><p>Visible text.</p><p>More.</p></body>",
        False,
    )
