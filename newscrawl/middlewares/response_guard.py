"""ResponseGuardMiddleware: name what is wrong with a page body before the pipelines see it.

Nothing is dropped here: a bad page still reaches the pipelines, which store it as a
failed page with its reason, so no fetched page is lost. This guard logs and counts what
it found, and repairs the one thing it can: a charset the server got wrong.
"""

from __future__ import annotations

import codecs
import logging
from typing import Self

from charset_normalizer import from_bytes
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response, TextResponse
from scrapy.statscollectors import StatsCollector
from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding

from newscrawl import settings as project_settings
from newscrawl.stats_keys import (
    RESPONSE_GUARD_BINARY_BODY,
    RESPONSE_GUARD_CHARSET_MIXED,
    RESPONSE_GUARD_CHARSET_REPAIRED,
    RESPONSE_GUARD_EMPTY_BODY,
    count_event,
)

logger = logging.getLogger(__name__)

# Leading bytes of formats that are never a web page, whatever the Content-Type says.
BINARY_SIGNATURES = (
    b"%PDF-", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b", b"\x7fELF",
    b"OggS", b"ID3", b"\x00\x00\x01\x00",
)
SNIFF_BYTES = 4096
# Set on requests for documents that are no pages (sitemaps, gzipped or not, whatever their
# Content-Type): they never reach the pipelines, and their parser names what is wrong.
SKIP_GUARD_META = "newscrawl_skip_response_guard"
# How UTF-16 and UTF-32 text starts, with a BOM or, for XML, with "<" and no BOM.
WIDE_TEXT_STARTS = (
    codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE,
    b"<\x00", b"\x00<", b"\x00\x00\x00<",
)
# A UTF-8 page with few stray single-byte sequences is "mixed", not mislabelled: a snippet
# pasted in from a latin-1 source, say. Text in a non-Latin single-byte charset (cp1251...)
# is dense with non-ASCII bytes and goes to charset detection instead.
MAX_STRAY_SEQUENCES = 64
MAX_STRAY_FRACTION = 0.02
# What find_body_problem says -> its counter.
BODY_PROBLEM_KEYS = {"empty": RESPONSE_GUARD_EMPTY_BODY, "binary": RESPONSE_GUARD_BINARY_BODY}


def find_body_problem(body: bytes) -> str | None:
    """Why a body cannot be a web page ("empty", "binary"), or None when it may be one."""
    if not body.strip():
        return "empty"
    head = body[:SNIFF_BYTES]
    if head.startswith(BINARY_SIGNATURES):
        return "binary"
    # UTF-16/32 pages and feeds carry NUL bytes legitimately (the UTF-32 LE BOM starts like
    # the UTF-16 LE one, and "<\x00" covers "<\x00\x00\x00" too).
    if b"\x00" in head and not head.startswith(WIDE_TEXT_STARTS):
        return "binary"
    return None


def decodes_cleanly(body: bytes, encoding: str) -> bool:
    """True when the whole body decodes with `encoding` without a single error."""
    try:
        body.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


def decode_mixed_utf8(body: bytes) -> str | None:
    """Decode UTF-8 whose few invalid sequences are cp1252; None when they are too many."""
    parts: list[str] = []
    position = stray_bytes = 0
    for _ in range(MAX_STRAY_SEQUENCES + 1):
        try:
            parts.append(body[position:].decode("utf-8"))
        except UnicodeDecodeError as error:
            start, end = position + error.start, position + error.end
            parts.append(body[position:start].decode("utf-8"))
            parts.append(body[start:end].decode("cp1252", errors="replace"))
            stray_bytes += end - start
            position = end
            continue
        return "".join(parts) if stray_bytes <= MAX_STRAY_FRACTION * len(body) else None
    return None


def guess_encoding(body: bytes) -> str | None:
    """The encoding the body itself declares, if it decodes with it, else a statistical guess."""
    declared = html_body_declared_encoding(body)
    if declared and decodes_cleanly(body, declared):
        return declared
    best = from_bytes(body[: 256 * 1024]).best()
    return best.encoding if best is not None else None


class ResponseGuardMiddleware:
    """Log and count empty and binary bodies; re-decode pages whose header charset is wrong."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool(
            "NEWSCRAWL_RESPONSE_GUARD", project_settings.NEWSCRAWL_RESPONSE_GUARD
        ):
            raise NotConfigured("the response guard is off (NEWSCRAWL_RESPONSE_GUARD)")
        assert crawler.stats is not None
        return cls(crawler.stats)

    def process_response(self, request: Request, response: Response) -> Response:
        if response.status != 200 or not isinstance(response, TextResponse):
            return response
        if request.meta.get(SKIP_GUARD_META):
            return response
        problem = find_body_problem(response.body)
        if problem is not None:
            logger.warning("Bad response body (%s) at %s", problem, response.url)
            count_event(self.stats, BODY_PROBLEM_KEYS[problem])
            return response
        return self.repair_charset(response)

    def repair_charset(self, response: TextResponse) -> TextResponse:
        """Re-decode a page whose Content-Type charset does not fit its bytes."""
        raw_type = response.headers.get(b"Content-Type")
        declared = http_content_type_encoding(raw_type.decode("latin-1")) if raw_type else None
        if not declared or decodes_cleanly(response.body, declared):
            return response
        if codecs.lookup(declared).name == "utf-8":
            mixed = decode_mixed_utf8(response.body)
            if mixed is not None:
                logger.warning(
                    "Mixed charsets in %s: stray cp1252 bytes in UTF-8 re-decoded", response.url
                )
                count_event(self.stats, RESPONSE_GUARD_CHARSET_MIXED)
                return response.replace(body=mixed.encode("utf-8"), encoding="utf-8")
        guessed = guess_encoding(response.body)
        if guessed is None or guessed == declared:
            return response
        logger.warning(
            "Charset %s declared by %s does not fit its body; decoding as %s",
            declared, response.url, guessed,
        )
        count_event(self.stats, RESPONSE_GUARD_CHARSET_REPAIRED)
        return response.replace(encoding=guessed)
