"""Type stub for the compiled metadata element scan (_metadata_scan.pyx)."""

import lxml.html

BUILT_FOR_LXML: str

def scan_elements(
    root: lxml.html.HtmlElement,
    indexed_tags: tuple[str, ...],
    byline_tags: tuple[str, ...],
    byline_markers: tuple[str, ...],
) -> (
    tuple[
        dict[str, list[lxml.html.HtmlElement]],
        list[lxml.html.HtmlElement],
        list[lxml.html.HtmlElement],
        list[lxml.html.HtmlElement],
    ]
    | None
):
    """(tags, author-marked, date-marked, byline candidates) of the page; None if it cannot."""

def body_text_sample(
    root: lxml.html.HtmlElement, no_text_tags: frozenset[str], limit: int
) -> str | None:
    """`language._read_body_text(root)`, from one C walk; None if it cannot."""

def meta_contents(metas: list[lxml.html.HtmlElement]) -> dict[str, list[str]]:
    """`metadata.read_meta_tags` over the page's `<meta>` elements."""
