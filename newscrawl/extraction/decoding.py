"""Decode a page's bytes as browsers do: BOM, HTTP charset, `<meta>` declaration, then sniffing."""

from __future__ import annotations

import re

from charset_normalizer import from_bytes
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    to_unicode,
)

from newscrawl.extraction import compiled_loops

# What browsers assume for an undeclared page that is not UTF-8 (and charset detection cannot
# place): the WHATWG default for most locales.
_FALLBACK_ENCODING = "cp1252"
# Statistical detection reads this much of the page: enough to place the charset, and it keeps
# a multi-megabyte page from costing seconds.
_SNIFF_BYTES = 65536
# As much of the page as w3lib searches for a declaration.
_DECLARATION_BYTES = 4096
# An XML declaration after the start of the page (a pasted fragment's): w3lib honours it
# wherever it is, browsers never do; only one at the very start declares the document.
_INNER_XML_DECLARATION = re.compile(rb"(?<=.)<\?xml[^>]*>", re.DOTALL)
# The compiled UTF-8 check (see compiled_loops): `is_clean_utf8` without decoding the page.
_rows = compiled_loops.block_rows
_compiled_is_clean_utf8 = None if _rows is None else _rows.is_clean_utf8


def sniff_encoding(body: bytes) -> str | None:
    """The encoding of a page that declares none: UTF-8 if it is valid UTF-8, else a guess."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"
    results = from_bytes(body[:_SNIFF_BYTES])
    best = results.best()
    if best is None:
        return None
    for result in results:
        # Latin-script text often reads cleanly in several single-byte charsets, which
        # detection then ranks by a language guess (cp775 for French): when windows-1252 reads
        # it as cleanly as the best, the browsers' default wins.
        if result.encoding == _FALLBACK_ENCODING and result.chaos <= best.chaos:
            return _FALLBACK_ENCODING
    return best.encoding


def decode_html(body: bytes, http_encoding: str | None = None) -> str:
    """The page as text, decoded by w3lib's `html_to_unicode` (the order a browser follows).

    `http_encoding` is the charset of the response's Content-Type header, when there was one.
    """
    return decode_html_as(body, http_encoding)[1]


def decode_html_as(body: bytes, http_encoding: str | None = None) -> tuple[str, str]:
    """`decode_html`, and the name of the encoding it used."""
    encoding, skipped = html_encoding(body, http_encoding)
    return encoding, to_unicode(body[skipped:], encoding)


def html_encoding(body: bytes, http_encoding: str | None = None) -> tuple[str, int]:
    """The encoding `decode_html_as` reads the page in, and the length of the byte-order mark
    it skips: w3lib's `html_to_unicode` choice (BOM, HTTP charset, declaration, sniffing, the
    default), without decoding the page."""
    bom_encoding, bom = read_bom(body)
    if bom_encoding is not None and bom is not None:
        return bom_encoding, len(bom)
    if not http_encoding:
        http_encoding = _declaration_outside_fragments(body)
    content_type = f"text/html; charset={http_encoding}" if http_encoding else None
    encoding = http_content_type_encoding(content_type)
    if encoding is None:
        encoding = html_body_declared_encoding(body)
    if encoding is None:
        encoding = sniff_encoding(body)
    if encoding is None:
        return _FALLBACK_ENCODING, 0
    if encoding in {"utf-16", "utf-32"}:
        encoding += "-be"
    return encoding, 0


def is_clean_utf8(body: bytes, start: int = 0) -> bool:
    """Whether `body[start:]` is valid UTF-8 without U+FFFD: decoded with errors replaced, no
    character is the replacement character, neither replaced nor the page's own."""
    if _compiled_is_clean_utf8 is not None:
        return bool(_compiled_is_clean_utf8(body, start))
    # The reference for `_block_rows.is_clean_utf8`.
    return "\ufffd" not in body[start:].decode("utf-8", "replace")


def _declaration_outside_fragments(body: bytes) -> str | None:
    """The page's encoding when an inner XML declaration would mislead w3lib, else None.

    That is the page's own declaration, or what sniffing finds when it has none.
    """
    head = body[:_DECLARATION_BYTES]
    if b"<?xml" not in head[1:]:
        return None
    blanked = _INNER_XML_DECLARATION.sub(lambda match: b" " * len(match[0]), head.lstrip())
    return html_body_declared_encoding(blanked) or sniff_encoding(body)
