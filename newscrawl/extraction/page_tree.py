"""A page's lxml tree: decoded as a browser would, bounded in size, parsed and repaired."""

from __future__ import annotations

import codecs
import itertools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import lxml.etree
import lxml.html
import numpy as np
from w3lib.encoding import to_unicode

from newscrawl.extraction.decoding import html_encoding, is_clean_utf8
from newscrawl.extraction.swallowed_body import release_swallowed_body
from newscrawl.extraction.tag_sets import SWALLOWING_MEDIA_TAGS, UNKNOWN_VOID_TAGS

# Characters lxml will not put in element text (XML 1.0 forbids them).
_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# lxml refuses text that starts with an XML declaration naming an encoding, even a broken one
# that runs into the markup after it.
_XML_DECLARATION = re.compile(r"\s*<\?xml", re.IGNORECASE)
# Less text than this inside a media tag is its fallback text, not swallowed content.
_SWALLOWED_TEXT_CHARS = 200
# Pages with more start tags than this are cut at that tag before parsing: the tree, its Python
# proxies and the walk's per-node lists grow with the element count, and a page just under the
# 5 MiB download cap made of tiny elements took 372 MB to extract (bench.extract_memory). No
# article needs the markup past the first 100,000 elements: the dev page with the most markup
# (dragnet T55) has 20,574 `<` and 10,534 elements.
MAX_ELEMENTS = 100_000
# Page state a client-side app assigns in a plain script (read by `article_body`).
STATE_ASSIGNMENT = re.compile(r"^\s*(?:window\.|var\s+|let\s+|const\s+)?__\w+__\s*=\s*")
# Comments are matched first so that a `<script` inside one starts nothing.
_DROPPED_BLOCK = re.compile(
    r"<!--.*?-->|<(script|style)\b([^>]*)>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL
)
_DROPPED_BLOCK_BYTES = re.compile(_DROPPED_BLOCK.pattern.encode(), re.IGNORECASE | re.DOTALL)
_START_TAG = re.compile(r"<[A-Za-z]")
_START_TAG_BYTES = re.compile(rb"<[A-Za-z]")


def _build_parser(encoding: str | None = None) -> lxml.html.HTMLParser:
    """An HTML parser whose elements are all `HtmlElement`, looked up in C, and that makes no
    comments nor processing instructions.

    lxml.html's default lookup calls back into Python for every element proxy it creates, which
    costs about a third of a full tree walk; the form-specific classes it picks are never used.
    Comments split text runs: libxml2 told to drop them joins the text around each, as
    stripping them after the parse did, without a second pass over the tree.
    """
    parser = lxml.html.HTMLParser(encoding=encoding, remove_comments=True, remove_pis=True)
    parser.set_element_class_lookup(
        lxml.etree.ElementDefaultClassLookup(
            element=lxml.html.HtmlElement,
            comment=lxml.html.HtmlComment,
            pi=lxml.html.HtmlProcessingInstruction,
            entity=lxml.html.HtmlEntity,
        )
    )
    return parser


# Configuration only, like lxml.html's own module-level parser (lxml locks it while parsing).
_PARSER = _build_parser()
# For text that lxml will not take as a str: its UTF-8 bytes, whatever they declare.
_UTF8_PARSER = _build_parser("utf-8")


def parse_tree(html: str | bytes, *, encoding: str | None = None) -> lxml.html.HtmlElement:
    """Parse HTML into an `<html>` root; never raises.

    Bytes are decoded as a browser would (`decode_html`), `encoding` being the charset of the
    response's Content-Type header when there was one: libxml2 alone ignores a `<meta charset>`
    that follows non-ASCII text and reads an undeclared page as Latin-1.
    """
    return parse_bounded_tree(html, encoding=encoding)[0]


def parse_bounded_tree(
    html: str | bytes, *, encoding: str | None = None
) -> tuple[lxml.html.HtmlElement, bool]:
    """`parse_tree`, and whether the page was cut at MAX_ELEMENTS elements before parsing."""
    source: str | bytes
    if isinstance(html, bytes):
        body = html
        used, skipped = html_encoding(body, encoding)
        # Valid UTF-8 (no character replaced in decoding, nor the replacement character of its
        # own), checked on the bytes without making the text.
        if used == "utf-8" and is_clean_utf8(body, skipped):
            # libxml2 reads the bytes themselves faster than the text, told their encoding so
            # that no declaration in them can override it.
            source, parser = body.removeprefix(codecs.BOM_UTF8), _UTF8_PARSER
            if b"\xcc" in body or b"\xcd" in body:
                # Maybe a combining mark (see `compose_text`): the text is needed to compose it.
                text = body[skipped:].decode("utf-8")
                composed = compose_text(text, body)
                if composed is not text:
                    source = composed.encode("utf-8")
        else:
            source, parser = _text_source(compose_text(to_unicode(body[skipped:], used)))
    else:
        source, parser = _text_source(compose_text(html))
    source, truncated = trim_markup(source)
    try:
        root = lxml.html.document_fromstring(source, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        root = lxml.html.document_fromstring("<html><body></body></html>", parser=_PARSER)
    if not isinstance(root.tag, str) or root.tag != "html":
        wrapper = lxml.html.document_fromstring("<html><body></body></html>", parser=_PARSER)
        wrapper.find("body").append(root)
        root = wrapper
    release_swallowed_body(root, _PARSER)
    _adopt_stray_roots(root)
    _release_swallowed_content(root)
    return root, truncated


def _text_source(text: str) -> tuple[str | bytes, lxml.html.HTMLParser]:
    """What libxml2 parses of a decoded page, and with which parser."""
    if _XML_DECLARATION.match(text):
        # The declaration is spent (the text is decoded): libxml2 reads past it as before.
        return text.encode("utf-8", "replace"), _UTF8_PARSER
    return text, _PARSER


def compose_text(text: str, utf8: bytes | None = None) -> str:
    """The text in Unicode's composed form (NFC) when it holds a combining diacritical mark;
    else the same object.

    Some editors and CMSs store accented letters decomposed, a base letter followed by a
    combining mark ("u" + U+0308 for "ü"). A browser shows both forms alike, but `\\w` runs
    and word counts stop at the mark: "Südtiroler" reads as "su" and "dtiroler".

    The marks that decompose Latin, Greek, Cyrillic and Vietnamese letters (U+0300 to U+036F)
    all start with byte 0xCC or 0xCD in UTF-8, as do U+0370 to U+037F (Greek signs; a page with
    one is normalised too): searching the page's bytes (`utf8`, when it came so, else the text
    encoded) is a hundred times faster than Python's NFC check, and text and bytes give the same
    tree. A page without such a byte is left as it is, even where NFC
    would change it (Bengali's composition exclusions).
    """
    if text.isascii():
        return text
    data = text.encode("utf-8", "replace") if utf8 is None else utf8
    if b"\xcc" not in data and b"\xcd" not in data:
        return text
    return unicodedata.normalize("NFC", text)


def trim_markup(source: str | bytes) -> tuple[str | bytes, bool]:
    """Bound what libxml2 builds a tree of: at most MAX_ELEMENTS elements. Returns whether cut.

    Only a page with more than MAX_ELEMENTS `<` is touched: it first loses its styles and its
    scripts (except the JSON data and page state that the metadata and article body read), so
    that the cap falls on content, then is cut at the start tag after the last it keeps;
    libxml2 closes what is left open. Every other page is parsed as it is: dropping scripts
    from all pages changed 41 of 3,086 dev articles (libxml2 reads some old scripts' markup).
    """
    if isinstance(source, bytes):
        if not _exceeds_element_cap(source):
            return source, False
        data = _DROPPED_BLOCK_BYTES.sub(_keep_data_script_bytes, source)
        cut = _nth_start(_START_TAG_BYTES.finditer(data))
        return (data, False) if cut is None else (data[:cut], True)
    if source.count("<") <= MAX_ELEMENTS:
        return source, False
    text = _DROPPED_BLOCK.sub(_keep_data_script, source)
    cut = _nth_start(_START_TAG.finditer(text))
    return (text, False) if cut is None else (text[:cut], True)


def _exceeds_element_cap(source: bytes) -> bool:
    """Whether the bytes hold more than MAX_ELEMENTS `<` (numpy: 3x faster than `bytes.count`)."""
    if len(source) <= MAX_ELEMENTS:
        return False
    return bool(np.count_nonzero(np.frombuffer(source, dtype=np.uint8) == ord("<")) > MAX_ELEMENTS)


def _nth_start(tags: Iterator[re.Match[Any]]) -> int | None:
    """Where the start tag after the first MAX_ELEMENTS begins, if there is one."""
    beyond = next(itertools.islice(tags, MAX_ELEMENTS, None), None)
    return None if beyond is None else beyond.start()


def _keep_data_script(match: re.Match[str]) -> str:
    """The matched block when the extraction reads it (a comment, JSON, page state), else ''."""
    tag, attributes, content = match.group(1, 2, 3)
    if tag is None or _is_data_script(tag, attributes, content):
        return match.group(0)
    return ""


def _keep_data_script_bytes(match: re.Match[bytes]) -> bytes:
    """`_keep_data_script` for a page still in (UTF-8) bytes."""
    tag, attributes, content = match.group(1, 2, 3)
    if tag is None or _is_data_script(
        tag.decode("ascii"),
        attributes.decode("utf-8", "replace"),
        content[:200].decode("utf-8", "replace"),
    ):
        return match.group(0)
    return b""


def _is_data_script(tag: str, attributes: str, content: str) -> bool:
    """Whether a script holds data the extraction reads: JSON (JSON-LD) or app page state."""
    if tag.lower() != "script":
        return False
    return "json" in attributes.lower() or STATE_ASSIGNMENT.match(content) is not None


def _adopt_stray_roots(root: lxml.html.HtmlElement) -> None:
    """Move content that libxml2 put beside the root into its body.

    A `</html>` mid-page (an embedded ad document, a pasted template) makes libxml2 start new
    top-level `<html>` elements for the rest of the page, which a walk from the root never sees.
    """
    strays = [sibling for sibling in root.itersiblings() if isinstance(sibling.tag, str)]
    if not strays:
        return
    body = root.find("body")
    if body is None:
        body = lxml.etree.SubElement(root, "body")
    for stray in strays:
        if stray.tag != "html":
            body.append(stray)
            continue
        _append_text(body, stray.text)
        for part in list(stray):
            if part.tag in ("body", "head"):
                _append_text(body, part.text)
                body.extend(list(part))
                _append_text(body, part.tail)
            else:
                body.append(part)


def _append_text(parent: lxml.html.HtmlElement, text: str | None) -> None:
    """Add text after the last child of `parent` (or as its text when it has none)."""
    if not text:
        return
    # libxml2 keeps control characters that lxml refuses to set: they are invisible anyway.
    if len(parent):
        last = parent[-1]
        last.tail = _XML_INVALID.sub("", (last.tail or "") + text)
    else:
        parent.text = _XML_INVALID.sub("", (parent.text or "") + text)


def _release_swallowed_content(root: lxml.html.HtmlElement) -> None:
    """Move content that an unclosed `<embed>` or `<video>` swallowed back out after it."""
    for element in list(root.iter(*UNKNOWN_VOID_TAGS, *SWALLOWING_MEDIA_TAGS)):
        if not len(element) and not element.text:
            continue
        if (
            element.tag in SWALLOWING_MEDIA_TAGS
            and len(element.text_content()) < _SWALLOWED_TEXT_CHARS
        ):
            # Short fallback text ("your browser does not support video") stays hidden.
            continue
        _hoist_children(element)


def _hoist_children(element: lxml.html.HtmlElement) -> None:
    """Make an element's text and children its following siblings."""
    parent = element.getparent()
    if parent is None:
        return
    children = list(element)
    tail = element.tail or ""
    element.tail = element.text
    element.text = None
    position = parent.index(element) + 1
    for offset, child in enumerate(children):
        parent.insert(position + offset, child)
    if children:
        children[-1].tail = (children[-1].tail or "") + tail or None
    else:
        element.tail = (element.tail or "") + tail or None
