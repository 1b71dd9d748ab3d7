"""Parse a page once into an lxml tree plus the per-node state that every stage annotates."""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import lxml.etree
import lxml.html
import numpy as np

from newscrawl.extraction.decoding import decode_html_as

try:
    # The compiled walk (built by `pip install`, see setup.py): the same Document, faster.
    from newscrawl.extraction import _text_walk as _compiled_walk
except ImportError:  # not built, or built for another lxml: `_index_text` does the same job
    _compiled_walk = None  # type: ignore[assignment]
# Whether parse_document uses the compiled walk rather than `_index_text`.
COMPILED_WALK: bool = _compiled_walk is not None

# Containers whose text is never article text.
SKIPPED_TAGS = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "title",
        "meta",
        "link",
        "iframe",
        "object",
        "embed",
        "param",
        "svg",
        "math",
        "select",
        "option",
        "textarea",
        "button",
        "input",
        "canvas",
        "map",
        "video",
        "audio",
    ]
)
# Elements that start a new text block; everything else is inline and joins its block's text.
BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frame",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "li",
        "main",
        "menu",
        "nav",
        "noframes",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
        "caption",
        "legend",
        "br",
    ]
)
_WHITESPACE = re.compile(r"\s+")
# Characters lxml will not put in element text (XML 1.0 forbids them).
_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# lxml refuses text that starts with an XML declaration naming an encoding, even a broken one
# that runs into the markup after it.
_XML_DECLARATION = re.compile(r"\s*<\?xml", re.IGNORECASE)
# HTML5 void elements that libxml2 (an HTML 4 parser) does not know are empty: it nests
# whatever follows one of them inside it. It closes img, input, param and the like itself.
_VOID_TAGS = frozenset(["embed", "source", "track", "wbr", "keygen"])
# Media whose fallback content is invisible, but which an unclosed tag makes swallow the page.
_MEDIA_TAGS = frozenset(["video", "audio", "object", "canvas"])
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
    """An HTML parser whose elements are all `HtmlElement`, looked up in C.

    lxml.html's default lookup calls back into Python for every element proxy it creates, which
    costs about a third of a full tree walk; the form-specific classes it picks are never used.
    """
    parser = lxml.html.HTMLParser(encoding=encoding)
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


@dataclass(eq=False, slots=True)
class TextPiece:
    """One run of visible text: an element's `.text` or one of its children's `.tail`.

    Followed by blank text within its block, it ends with a space (see `joined_text`).
    """

    text: str
    element: lxml.html.HtmlElement  # the element whose own (direct) text this is
    in_link: bool
    segment: int


@dataclass(eq=False, slots=True)
class Segment:
    """A text block: the inline text between two block boundaries, in document order."""

    index: int
    block: lxml.html.HtmlElement  # nearest block-level element holding the text
    first_piece: int
    last_piece: int  # exclusive
    node: int  # walk index of `block` (see `Document.node_elements`)
    text: str = ""


if _compiled_walk is not None:
    # The compiled walk's own types, with the same fields: it makes them without a Python call,
    # and the garbage collector does not trace them (they never lead back to themselves).
    TextPiece = _compiled_walk.TextPiece  # type: ignore[misc,assignment]
    Segment = _compiled_walk.Segment  # type: ignore[misc,assignment]


@dataclass(eq=False)
class Document:
    """A parsed page with the annotations the extraction stages leave on it."""

    tree: lxml.html.HtmlElement
    url: str | None
    pieces: list[TextPiece]
    segments: list[Segment]
    # Index range of pieces inside each text-bearing element's subtree, for fast subtree text
    # sums: a dict from the Python walk, a `_text_walk.PieceRanges` view from the compiled one.
    piece_range: Mapping[lxml.html.HtmlElement, tuple[int, int]]
    # Per walked element, in walk order: the element, its parent's walk index (-1 for the root)
    # and the piece range of its subtree. Lists indexed by position: no dicts keyed by element.
    node_elements: list[lxml.html.HtmlElement] = field(default_factory=list)
    node_parents: list[int] = field(default_factory=list)
    node_starts: list[int] = field(default_factory=list)
    node_ends: list[int] = field(default_factory=list)
    # Annotations written by the stages; empty until the stage ran.
    static_support: dict[lxml.html.HtmlElement, float] = field(default_factory=dict)
    static_applied: bool = False
    static_page_count: int = 0
    removed_pieces: set[int] = field(default_factory=set)
    dynamic_noise: list[lxml.html.HtmlElement] = field(default_factory=list)
    dynamic_applied: bool = False
    # Word and keyword counts of every segment's text per keyword set (`count_segment_words`).
    word_counts: dict[frozenset[str], Any] = field(default_factory=dict)
    # Title keywords per (title, longest-segment setting): relevance and the block features
    # both ask for them (`relevance.title_keyword_set`).
    title_keywords: dict[tuple[str, bool], frozenset[str]] = field(default_factory=dict)
    # Per piece: its stripped length, and again when in a link (`block_features.piece_char_rows`);
    # the dynamic-noise stage and the block features both read it, so it is computed once.
    piece_chars: Any = None
    relevant_segments: set[int] = field(default_factory=set)
    title_segments: list[int] = field(default_factory=list)
    relevance_applied: bool = False
    # The page had more than MAX_ELEMENTS elements and was cut before parsing.
    truncated: bool = False

    @property
    def body(self) -> lxml.html.HtmlElement:
        """The `<body>` element, or the root when the page has none."""
        body = self.tree.find("body")
        return body if body is not None else self.tree


def normalise_space(text: str) -> str:
    """Collapse whitespace runs to single spaces and strip the ends."""
    return _WHITESPACE.sub(" ", text).strip()


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
    parser = _PARSER
    source: str | bytes = html
    if isinstance(html, bytes):
        body = html
        used, html = decode_html_as(body, encoding)
        source = html
        if used == "utf-8" and "\ufffd" not in html:
            # Valid UTF-8: libxml2 reads the bytes themselves faster than the text, told
            # their encoding so that no declaration in them can override it.
            source = body.removeprefix(codecs.BOM_UTF8)
            parser = _UTF8_PARSER
    if parser is _PARSER and _XML_DECLARATION.match(html):
        # The declaration is spent (the text is decoded): libxml2 reads past it as before.
        source, parser = html.encode("utf-8", "replace"), _UTF8_PARSER
    source, truncated = trim_markup(source)
    try:
        root = lxml.html.document_fromstring(source, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        root = lxml.html.document_fromstring("<html><body></body></html>", parser=_PARSER)
    if not isinstance(root.tag, str) or root.tag != "html":
        wrapper = lxml.html.document_fromstring("<html><body></body></html>", parser=_PARSER)
        wrapper.find("body").append(root)
        root = wrapper
    # Comments split text runs; stripping them keeps their tails as plain text.
    lxml.etree.strip_tags(root, lxml.etree.Comment, lxml.etree.ProcessingInstruction)
    _adopt_stray_roots(root)
    _release_swallowed_content(root)
    return root, truncated


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
    for element in list(root.iter(*_VOID_TAGS, *_MEDIA_TAGS)):
        if not len(element) and not element.text:
            continue
        if element.tag in _MEDIA_TAGS and len(element.text_content()) < _SWALLOWED_TEXT_CHARS:
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


def parse_document(
    html: str | bytes, *, url: str | None = None, encoding: str | None = None
) -> Document:
    """Parse a page and index its visible text into pieces and blocks (`encoding`: parse_tree)."""
    tree, truncated = parse_bounded_tree(html, encoding=encoding)
    document = Document(
        tree=tree, url=url, pieces=[], segments=[], piece_range={}, truncated=truncated
    )
    if _compiled_walk is None or not _compiled_walk.index_text(document, SKIPPED_TAGS, BLOCK_TAGS):
        _index_text(document)
    return document


def _index_text(document: Document) -> None:
    """Walk the tree once, recording text pieces, block segments and subtree ranges."""
    # The reference for the compiled twin in `_text_walk.pyx`, and the walk when it is not built.
    # One hot loop over every node: helpers and globals are bound locally, and counts are
    # kept in locals rather than asked of the lists.
    skipped_tags = SKIPPED_TAGS
    block_tags = BLOCK_TAGS
    pieces = document.pieces
    segments = document.segments
    piece_range: dict[lxml.html.HtmlElement, tuple[int, int]] = {}
    document.piece_range = piece_range
    add_piece = pieces.append
    add_segment = segments.append
    node_elements = document.node_elements
    node_parents = document.node_parents
    node_starts = document.node_starts
    node_ends = document.node_ends
    add_element = node_elements.append
    add_parent = node_parents.append
    add_start = node_starts.append
    add_end = node_ends.append
    # Open blocks as (element, walk index).
    block_stack: list[tuple[lxml.html.HtmlElement, int]] = []
    # Walk indices of the open elements; `parent` is the top (-1 above the root).
    node_stack: list[int] = []
    push_node = node_stack.append
    pop_node = node_stack.pop
    parent = -1
    node_count = 0
    piece_count = 0
    # Open `<a href>` elements; a link's end event compares against the top.
    link_stack: list[lxml.html.HtmlElement] = []
    current: Segment | None = None
    # Whether blank text (skipped: it makes no piece) lies between the open segment's last
    # piece and the next one: the source's only space there.
    gap = False
    walker = lxml.etree.iterwalk(document.tree, events=("start", "end"))
    for event, element in walker:
        if event == "start":
            tag = element.tag
            add_element(element)
            add_parent(parent)
            add_start(piece_count)
            add_end(0)
            push_node(parent)
            parent = node_count
            node_count += 1
            if tag in skipped_tags:
                # Nothing inside is visible (head, scripts, svg...): do not even walk it.
                walker.skip_subtree()
                continue
            if tag == "a" and element.get("href") is not None:
                link_stack.append(element)
            if tag in block_tags:
                if current is not None:
                    current.last_piece = piece_count
                    add_segment(current)
                    current = None
                    gap = False
                block_stack.append((element, parent))
            text = element.text
            if text and not text.isspace():
                if current is None:
                    block, block_node = block_stack[-1]
                    current = Segment(len(segments), block, piece_count, 0, block_node)
                elif gap:
                    _keep_gap(pieces[-1])
                gap = False
                add_piece(TextPiece(text, element, bool(link_stack), current.index))
                piece_count += 1
            elif text and current is not None:
                gap = True
            continue
        tag = element.tag
        if tag in block_tags:
            if current is not None:
                current.last_piece = piece_count
                add_segment(current)
                current = None
                gap = False
            block_stack.pop()
        elif link_stack and link_stack[-1] is element:
            link_stack.pop()
        start = node_starts[parent]
        node_ends[parent] = piece_count
        if start != piece_count:
            # Only text-bearing subtrees are recorded; the stages ignore the others.
            piece_range[element] = (start, piece_count)
        parent = pop_node()
        if parent < 0:
            continue
        text = element.tail
        if text and not text.isspace():
            if current is None:
                block, block_node = block_stack[-1]
                current = Segment(len(segments), block, piece_count, 0, block_node)
            elif gap:
                _keep_gap(pieces[-1])
            gap = False
            add_piece(TextPiece(text, node_elements[parent], bool(link_stack), current.index))
            piece_count += 1
        elif text and current is not None:
            gap = True
    if current is not None:
        current.last_piece = piece_count
        add_segment(current)
    texts = [piece.text for piece in pieces]
    for segment in segments:
        segment.text = joined_text(texts, segment.first_piece, segment.last_piece)


def joined_text(texts: list[str], first: int, last: int) -> str:
    """A block's text from its pieces `texts[first:last]`, whitespace runs collapsed.

    Pieces join as the markup does: a space only where the source has whitespace (inside a
    piece, or blank text between two, which the walk leaves at the end of the first), so
    `(<a>AMZN</a>)` stays `(AMZN)` and inline elements never split CJK words.
    """
    # str.split() and the `\s+` pattern agree on what whitespace is; split is faster.
    if last - first == 1:
        return " ".join(texts[first].split())
    return " ".join("".join(texts[first:last]).split())


def _keep_gap(piece: TextPiece) -> None:
    """End a piece with a space, standing for the blank text the walk skipped after it."""
    if not piece.text[-1].isspace():
        piece.text += " "
