"""Decode a page's bytes as browsers do: BOM, HTTP charset, `<meta>` declaration, then sniffing."""

from __future__ import annotations

import re

from charset_normalizer import from_bytes
from w3lib.encoding import html_body_declared_encoding, html_to_unicode

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
    if not http_encoding:
        http_encoding = _declaration_outside_fragments(body)
    content_type = f"text/html; charset={http_encoding}" if http_encoding else None
    return html_to_unicode(
        content_type, body, default_encoding=_FALLBACK_ENCODING, auto_detect_fun=sniff_encoding
    )


def _declaration_outside_fragments(body: bytes) -> str | None:
    """The page's encoding when an inner XML declaration would mislead w3lib, else None.

    That is the page's own declaration, or what sniffing finds when it has none.
    """
    head = body[:_DECLARATION_BYTES]
    if b"<?xml" not in head[1:]:
        return None
    blanked = _INNER_XML_DECLARATION.sub(lambda match: b" " * len(match[0]), head.lstrip())
    return html_body_declared_encoding(blanked) or sniff_encoding(body)
