"""The learned static-noise template of one site: hashed node keys with their support."""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field

from newscrawl.extraction.errors import TemplateFormatError

FORMAT_VERSION = 1
_MAGIC = b"NCST"
_HEADER = struct.Struct("<4sHII")  # magic, format version, page count, key count


@dataclass(frozen=True)
class SiteTemplate:
    """Static keys seen on a site's neighbour pages: key hash -> number of pages holding it."""

    page_count: int
    counts: dict[int, int] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION

    def support(self, key: int) -> float:
        """Fraction of the neighbour pages that hold this key."""
        if self.page_count <= 0:
            return 0.0
        return self.counts.get(key, 0) / self.page_count

    def to_bytes(self) -> bytes:
        """Serialise compactly: a header, then zlib-compressed sorted keys and counts."""
        keys = sorted(self.counts)
        payload = struct.pack(f"<{len(keys)}Q", *keys) + struct.pack(
            f"<{len(keys)}H", *(min(self.counts[k], 0xFFFF) for k in keys)
        )
        header = _HEADER.pack(_MAGIC, self.format_version, self.page_count, len(keys))
        return header + zlib.compress(payload, 6)

    @classmethod
    def from_bytes(cls, data: bytes) -> SiteTemplate:
        """Load a template written by `to_bytes`; raise `TemplateFormatError` on bad data."""
        if len(data) < _HEADER.size:
            raise TemplateFormatError("site template is truncated")
        magic, version, page_count, key_count = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise TemplateFormatError("not a newscrawl site template")
        if version != FORMAT_VERSION:
            raise TemplateFormatError(
                f"site template format {version} is not supported (expected {FORMAT_VERSION})"
            )
        try:
            payload = zlib.decompress(data[_HEADER.size :])
        except zlib.error as exc:
            raise TemplateFormatError(f"site template payload is corrupt: {exc}") from exc
        if len(payload) != key_count * 10:
            raise TemplateFormatError("site template payload has the wrong size")
        keys = struct.unpack_from(f"<{key_count}Q", payload)
        counts = struct.unpack_from(f"<{key_count}H", payload, key_count * 8)
        return cls(page_count=page_count, counts=dict(zip(keys, counts, strict=True)))

    def to_json(self) -> str:
        """Serialise as JSON with hexadecimal keys."""
        return json.dumps(
            {
                "format": "newscrawl-site-template",
                "format_version": self.format_version,
                "page_count": self.page_count,
                "counts": {f"{k:016x}": v for k, v in sorted(self.counts.items())},
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> SiteTemplate:
        """Load a template written by `to_json`; raise `TemplateFormatError` on bad data."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise TemplateFormatError(f"site template is not valid JSON: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != "newscrawl-site-template":
            raise TemplateFormatError("not a newscrawl site template")
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise TemplateFormatError(
                f"site template format {version} is not supported (expected {FORMAT_VERSION})"
            )
        try:
            page_count = int(data["page_count"])
            counts = {int(k, 16): int(v) for k, v in data["counts"].items()}
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise TemplateFormatError(f"site template fields are malformed: {exc}") from exc
        return cls(page_count=page_count, counts=counts)
