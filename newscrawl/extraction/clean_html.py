"""Safe article HTML: content elements copied through an allow-list into a fresh tree.

Nothing is copied unless it is on the allow-list, so unknown tags, attributes and URL
schemes cannot slip through: the output is rebuilt, never cleaned in place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml.html import HtmlElement

from newscrawl.extraction.safe_urls import sanitise_url as sanitise_url
from newscrawl.extraction.tag_sets import (
    CLEAN_BLOCK_TAGS,
    DROPPED_TAGS,
    END_TAG_OPTIONAL_TAGS,
    INLINE_KEPT_TAGS,
    INVISIBLE_DROPPED_TAGS,
    ITEM_LIST_TAGS,
    RENAMED_TAGS,
    SERIALISED_VOID_TAGS,
    TEXT_CONTAINER_TAGS,
)
from newscrawl.extraction.tag_sets import KEPT_TAGS as KEPT_TAGS

# Tuples, not sets: the output's attribute order must not depend on hash seeds.
ALLOWED_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "a": ("href", "title"),
    "img": ("src", "alt", "title", "width", "height"),
    "td": ("colspan", "rowspan"),
    "th": ("colspan", "rowspan", "scope"),
    "ol": ("start",),
    "blockquote": ("cite",),
    "q": ("cite",),
}
_URL_ATTRIBUTES = frozenset({"href", "src", "cite"})
# Characters an XML tree cannot hold (lxml refuses them); browsers would not show them either.
XML_INCOMPATIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NUMBER = re.compile(r"^\d{1,5}%?$")
_LAZY_SOURCES = ("data-src", "data-original", "data-lazy-src", "data-url")

# What the writer does with an element, by kind of tag.
_INVISIBLE, _VISIBLE_DROPPED, _KEPT, _BLOCK, _UNWRAPPED = range(5)


def _classify_tag(tag: str) -> tuple[int, str]:
    """The writer's handling of a tag, and the tag it is written as."""
    tag = tag.lower()
    tag = RENAMED_TAGS.get(tag, tag)
    if tag in DROPPED_TAGS or "{" in tag or ":" in tag:
        # Dropped and foreign-namespace (svg, math) elements: only the tail survives.
        return (_INVISIBLE if tag in INVISIBLE_DROPPED_TAGS else _VISIBLE_DROPPED), tag
    if tag in KEPT_TAGS:
        return _KEPT, tag
    return (_BLOCK if tag in CLEAN_BLOCK_TAGS else _UNWRAPPED), tag


# Every known tag's handling looked up once: one dict probe per element instead of a chain of
# set tests. Tags not listed (unknown or upper-case ones) are classified as they come.
_TAG_ACTIONS: dict[str, tuple[int, str]] = {
    tag: _classify_tag(tag)
    for tag in (*KEPT_TAGS, *RENAMED_TAGS, *DROPPED_TAGS, *CLEAN_BLOCK_TAGS, "span", "font", "u")
}


class _Output:
    """An element of the output tree: only what the writer and `_serialise` use."""

    __slots__ = ("tag", "attributes", "text", "tail", "children", "parent")

    def __init__(self, tag: str, attributes: dict[str, str] | None = None) -> None:
        self.tag = tag
        self.attributes = attributes
        self.text: str | None = None
        self.tail: str | None = None
        self.children: list[_Output] = []
        self.parent: _Output | None = None

    def append(self, child: _Output) -> None:
        child.parent = self
        self.children.append(child)


# `_serialise` writes HTML as libxml2 (2.14) serialises an HTML tree, the output's format
# since before it was written here: void elements and an empty <li> without an end tag, URL
# attributes percent-encoded, a value with a double quote (and no single one) single-quoted.
URI_ATTRIBUTES = frozenset({"href", "src"})
_URI_KEPT_BYTES = frozenset(range(0x21, 0x7F))
_URI_LEADING_BLANKS = " \t\n\r"


def escape_text(text: str) -> str:
    """Text as HTML: `&`, `<` and `>` as entities."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def escape_uri(value: str) -> str:
    """A URL attribute's value, leading blanks dropped, control, space and non-ASCII bytes %XX."""
    value = value.lstrip(_URI_LEADING_BLANKS)
    if value.isascii() and value.isprintable() and " " not in value:
        return value
    return "".join(
        chr(byte) if byte in _URI_KEPT_BYTES else f"%{byte:02X}" for byte in value.encode("utf-8")
    )


def quote_attribute(value: str) -> str:
    """An escaped attribute value in quotes: single ones around a value with only `"` in it."""
    value = escape_text(value)
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return '"' + value.replace('"', "&quot;") + '"'


def _serialise(element: _Output, out: list[str]) -> None:
    """Append an output element's HTML, and its tail, to `out`."""
    tag = element.tag
    out.append("<" + tag)
    if element.attributes:
        for name, value in element.attributes.items():
            if name in URI_ATTRIBUTES:
                value = escape_uri(value)
            out.append(f" {name}={quote_attribute(value)}")
    out.append(">")
    if tag not in SERIALISED_VOID_TAGS and (
        element.text or element.children or tag not in END_TAG_OPTIONAL_TAGS
    ):
        if element.text:
            out.append(escape_text(element.text))
        for child in element.children:
            _serialise(child, out)
        out.append(f"</{tag}>")
    if element.tail:
        out.append(escape_text(element.tail))


def _collapse_space(text: str) -> str:
    r"""Each whitespace run as one space, as `re.sub(r"\s+", " ", text)` does, 3x faster."""
    # str.split() splits on exactly the characters `\s` matches (checked over every code point).
    parts = text.split()
    if not parts:
        return " "
    collapsed = " ".join(parts)
    if text[0].isspace():
        collapsed = " " + collapsed
    if text[-1].isspace():
        collapsed += " "
    return collapsed


def _append_text(target: _Output, text: str) -> None:
    """Add text at the end of `target`'s content: after its last child, or as its text."""
    if target.children:
        last = target.children[-1]
        last.tail = (last.tail or "") + text
    else:
        target.text = (target.text or "") + text


class _CleanWriter:
    """Copy allowed content into an output container, wrapping loose inline runs in <p>."""

    def __init__(self, base_url: str | None) -> None:
        self.base_url = base_url
        self.root = _Output("div")
        self._open_paragraph: _Output | None = None
        # The open paragraph, when whitespace between its inline parts still has to be written:
        # only once something follows, so that no paragraph ends in a space.
        self._space_pending_in: _Output | None = None
        self._open_list: _Output | None = None
        self._pre_depth = 0

    def write(self, block: HtmlElement | str) -> None:
        if isinstance(block, str):
            self._write_paragraph(block)
        else:
            # The element's tail belongs to the surrounding page, not to the element.
            self._write_element(block, self.root, top_level=True, with_tail=False)
        self._open_paragraph = None

    def _write_paragraph(self, text: str) -> None:
        """Write text as a `<p>` element holding it would be written."""
        self._open_paragraph = None
        paragraph = _Output("p")
        self.root.append(paragraph)
        self._write_text(text, paragraph, False)
        paragraph.tail = "\n"

    def _inline_target(self, parent: _Output, top_level: bool, *, spaced: bool = False) -> _Output:
        """Where inline content goes; `spaced` content brings its own leading whitespace."""
        if not top_level:
            return parent
        if self._open_paragraph is None:
            self._open_paragraph = _Output("p")
            parent.append(self._open_paragraph)
        elif self._space_pending_in is self._open_paragraph and not spaced:
            _append_text(self._open_paragraph, " ")
        self._space_pending_in = None
        return self._open_paragraph

    def _list_target(self, parent: _Output) -> _Output:
        """Give list items found outside any list a <ul> to live in (consecutive ones share it)."""
        if parent.children and parent.children[-1] is self._open_list:
            return self._open_list
        self._open_list = _Output("ul")
        self._open_list.tail = "\n"
        parent.append(self._open_list)
        return self._open_list

    def _write_text(self, text: str | None, parent: _Output, top_level: bool) -> None:
        if not text:
            return
        if top_level and not text.strip():
            # Whitespace alone starts no paragraph, but inside an open one it still separates
            # the words of the inline elements around it.
            paragraph = self._open_paragraph
            if paragraph is None or paragraph.parent is not parent:
                return
            if paragraph.children:
                # No tail: the paragraph so far ends with an inline element such as <b>.
                tail = paragraph.children[-1].tail
                separated = tail[-1].isspace() if tail else False
            else:
                before = paragraph.text
                separated = not before or before[-1].isspace()  # empty: nothing to separate
            if not separated:
                self._space_pending_in = paragraph
            return
        # Printable text has no character lxml refuses and no whitespace but plain spaces:
        # without a double space it is already collapsed. That is most text, and both checks
        # cost far less than the substitution and the split.
        if not text.isprintable() or "  " in text:
            text = clean_text(text, in_pre=self._pre_depth > 0)
        target = parent
        if top_level:
            target = self._inline_target(parent, True, spaced=text[0].isspace())
        # `_append_text`, inlined: this runs for every text and tail written.
        if target.children:
            last = target.children[-1]
            last.tail = (last.tail or "") + text
        else:
            target.text = (target.text or "") + text

    def _write_children(self, element: HtmlElement, parent: _Output, top_level: bool) -> None:
        text = element.text
        if text:
            self._write_text(text, parent, top_level)
        write_element = self._write_element
        for child in element:
            write_element(child, parent, top_level)

    def _write_element(
        self, element: HtmlElement, parent: _Output, top_level: bool, with_tail: bool = True
    ) -> None:
        raw_tag = element.tag
        if isinstance(raw_tag, str):
            kind, tag = _TAG_ACTIONS.get(raw_tag) or _classify_tag(raw_tag)
        else:
            kind, tag = _INVISIBLE, ""  # comments and processing instructions
        if kind == _KEPT:
            self._write_kept(element, tag, parent, top_level)
        elif kind == _UNWRAPPED:
            self._write_children(element, parent, top_level)  # span, font, u...: unwrapped
        elif kind == _BLOCK:
            if top_level:
                self._open_paragraph = None
            self._write_children(element, parent, top_level)
            if top_level:
                self._open_paragraph = None
        elif kind == _VISIBLE_DROPPED:
            # Only the tail of a dropped element survives, but one that showed text (a button,
            # an svg label) still separated the words around it.
            self._write_text(" ", parent, top_level)
        if with_tail:
            tail = element.tail
            if tail:
                self._write_text(tail, parent, top_level)

    def _write_kept(self, element: HtmlElement, tag: str, parent: _Output, top_level: bool) -> None:
        if tag in ALLOWED_ATTRIBUTES:
            attributes = copy_attributes(element, tag, self.base_url)
            if tag == "img" and "src" not in attributes:
                return  # an image with no safe source is nothing but a broken box
        else:
            attributes = None
        inline = tag in INLINE_KEPT_TAGS
        if tag == "img" and parent.tag == "figure":
            target = parent  # a figure's image needs no paragraph around it
            # Text after the image starts a new paragraph after it, not the one before it.
            self._open_paragraph = None
        elif inline:
            target = self._inline_target(parent, True) if top_level else parent
        else:
            if top_level:
                self._open_paragraph = None
            target = parent
            if tag == "li" and top_level and parent.tag not in ITEM_LIST_TAGS:
                target = self._list_target(parent)
        copy = _Output(tag, attributes)  # attributes in the allow-list's order
        target.append(copy)
        if tag == "img" or tag == "br":
            return
        # Inside a text container loose text is fine; other blocks (ul, table, figure)
        # keep the top-level wrapping so text never sits bare beside block children.
        child_top_level = not inline and tag not in TEXT_CONTAINER_TAGS
        saved = self._open_paragraph
        self._open_paragraph = None
        if tag == "pre":
            self._pre_depth += 1
            self._write_children(element, copy, child_top_level)
            self._pre_depth -= 1
        else:
            self._write_children(element, copy, child_top_level)
        self._open_paragraph = saved if inline else None
        if not inline and top_level:
            copy.tail = "\n"


def clean_text(text: str, *, in_pre: bool) -> str:
    """Text without characters HTML cannot hold, its whitespace runs collapsed outside <pre>."""
    text = XML_INCOMPATIBLE.sub(" ", text)
    return text if in_pre else _collapse_space(text)  # collapsed renders the same, reads better


def copy_attributes(element: HtmlElement, tag: str, base_url: str | None) -> dict[str, str]:
    """The element's allowed attributes, URLs made absolute and safe, in the allow-list's order."""
    allowed = ALLOWED_ATTRIBUTES.get(tag, ())
    attributes: dict[str, str] = {}
    for name in allowed:
        value = element.get(name)
        if tag == "img" and name == "src":
            value = _pick_image_source(element)
        if value is None:
            continue
        if name in _URL_ATTRIBUTES:
            url = sanitise_url(value, base_url=base_url, image=tag == "img")
            if url is None:
                continue
            value = url
        elif name in {"width", "height", "colspan", "rowspan", "start"}:
            if not _NUMBER.match(value.strip()):
                continue
            value = value.strip()
        elif name == "scope" and value.strip().lower() not in {"row", "col", "rowgroup",
                                                               "colgroup"}:
            continue
        attributes[name] = XML_INCOMPATIBLE.sub("", value)
    return attributes


def _pick_image_source(element: HtmlElement) -> str | None:
    """Prefer the real source of a lazy-loaded image over its placeholder."""
    src = element.get("src")
    if src and not src.strip().lower().startswith("data:"):
        return src
    for name in _LAZY_SOURCES:
        if element.get(name):
            return element.get(name)
    return src


def _drop_nested(elements: Sequence[HtmlElement | str]) -> list[HtmlElement | str]:
    """Keep only the outermost of the given elements, in their given order (and every text)."""
    chosen = {id(element) for element in elements}
    kept: list[HtmlElement | str] = []
    kept_ids: set[int] = set()
    for element in elements:
        if isinstance(element, str):
            kept.append(element)
            continue
        ancestor = element.getparent()
        while ancestor is not None and id(ancestor) not in chosen:
            ancestor = ancestor.getparent()
        if ancestor is None and id(element) not in kept_ids:
            kept.append(element)
            kept_ids.add(id(element))
    return kept


def render_clean_html(
    elements: Sequence[HtmlElement | str],
    *,
    base_url: str | None = None,
    outermost: bool = False,
) -> str:
    """Copy content elements into safe, formatted HTML; the input is never modified.

    A text among the elements is written as a paragraph holding it. `outermost` says the caller
    already knows no element is repeated or inside another.
    """
    writer = _CleanWriter(base_url)
    for element in elements if outermost else _drop_nested(elements):
        writer.write(element)
    # The wrapper never has text of its own: its children with their tails are the output.
    out: list[str] = []
    for child in writer.root.children:
        _serialise(child, out)
    return "".join(out).strip()
