"""Type stub for the compiled article HTML writer (_clean_writer.pyx)."""

from collections.abc import Callable

from lxml.html import HtmlElement

BUILT_FOR_LXML: str

def render(
    elements: list[HtmlElement | str],
    base_url: str | None,
    tag_actions: dict[str, tuple[int, str]],
    classify: Callable[[str], tuple[int, str]],
    copy_attributes: Callable[[HtmlElement, str, str | None], dict[str, str]],
    clean_text: Callable[..., str],
    attributed_tags: frozenset[str],
    inline_kept: frozenset[str],
    text_containers: frozenset[str],
    void_tags: frozenset[str],
    optional_end_tags: frozenset[str],
    uri_attributes: frozenset[str],
    escape_uri: Callable[[str], str],
) -> str:
    """`render_clean_html` of elements none of which is inside another, and of texts."""
