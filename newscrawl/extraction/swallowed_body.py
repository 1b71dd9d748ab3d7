"""Recover the body of a page that libxml2 read into its `<head>`.

Both cases leave a page without body text, so its article would be lost whole:
- a `<title>` never closed: its text runs to its end tag (RCDATA), so libxml2, like a browser,
  reads the whole rest of the page as the title. Archived and hand-made pages lose a
  `</title>` often enough (a truncated `<head>`, a stray edit);
- an element a head cannot hold (`<mbox>`, a misspelt tag): a browser starts the body there,
  libxml2 keeps it and the rest of the page in the head.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html

from newscrawl.extraction.clean_html import XML_INCOMPATIBLE
from newscrawl.extraction.tag_sets import HEAD_TAGS

# Markup inside a title's text: only a swallowed page has tags there.
_MARKUP = re.compile(r"<(?:[A-Za-z!]|/[A-Za-z])")
# Where the real title ends: at its first line break or the first markup.
_TITLE_END = re.compile(r"[\r\n]|<(?:[A-Za-z!]|/[A-Za-z])")
# A title that long with markup in it is a swallowed page, not a headline.
_SWALLOWED_TITLE_CHARS = 1000


def release_swallowed_body(root: lxml.html.HtmlElement, parser: lxml.etree.HTMLParser) -> None:
    """Give a page without body text the body its head swallowed, if it did."""
    if has_body_text(root):
        return
    release_swallowed_title(root, parser)
    if not has_body_text(root):
        release_head_content(root)


def has_body_text(root: lxml.html.HtmlElement) -> bool:
    """Whether the body holds any text, read only up to its first words."""
    body = root.find("body")
    # `itertext` stops at the first text found: most pages are decided in a few nodes, where
    # `text_content` would copy the whole body's text on every page.
    return body is not None and any(text.strip() for text in body.itertext())


def release_head_content(root: lxml.html.HtmlElement) -> None:
    """Move the head's elements from the first that a head cannot hold into the body."""
    head = root.find("head")
    if head is None:
        return
    stray = next(
        (i for i, child in enumerate(head)
         if isinstance(child.tag, str) and child.tag not in HEAD_TAGS),
        None,
    )
    if stray is None:
        return
    body = root.find("body")
    if body is None:
        body = lxml.etree.SubElement(root, "body")
    for offset, child in enumerate(list(head)[stray:]):
        body.insert(offset, child)


def release_swallowed_title(root: lxml.html.HtmlElement, parser: lxml.etree.HTMLParser) -> None:
    """Parse the page an unclosed `<title>` swallowed (called when the page has no body text).

    The title keeps its first line; what follows is parsed with `parser` and its head and body
    join the page's.
    """
    title = root.find("head/title")
    if title is None or len(title):
        return
    text = title.text or ""
    if len(text) < _SWALLOWED_TITLE_CHARS or not _MARKUP.search(text):
        return
    end = _TITLE_END.search(text)
    cut = end.start() if end is not None else len(text)
    try:
        swallowed = lxml.html.document_fromstring(text[cut:], parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return
    # Read text may hold control characters that lxml refuses to set back.
    title.text = XML_INCOMPATIBLE.sub(" ", text[:cut]).strip() or None
    head = title.getparent()
    body = root.find("body")
    for part in list(swallowed):
        if part.tag == "head" and head is not None:
            head.extend(list(part))
        elif part.tag == "body":
            if body is not None:
                root.remove(body)
            root.append(part)
