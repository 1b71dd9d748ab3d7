"""Compress raw page bodies for the `pages` table."""

from __future__ import annotations

import zlib

BODY_COMPRESSION = "zlib"


def compress_body(body: bytes) -> bytes:
    """Compress a raw HTTP body."""
    return zlib.compress(body, 6)


def decompress_body(data: bytes, compression: str = BODY_COMPRESSION) -> bytes:
    """Return the raw body stored by `compress_body`."""
    if compression != BODY_COMPRESSION:
        raise ValueError(f"unknown page body compression {compression!r}")
    return zlib.decompress(data)
