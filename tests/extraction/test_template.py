"""SiteTemplate: compact serialisation round trips and clear errors on bad or old data."""

from __future__ import annotations

import json
import struct

import pytest

from newscrawl.extraction import SiteTemplate, TemplateFormatError, learn_static_noise
from newscrawl.extraction.template import FORMAT_VERSION

PAGES = [
    f"<html><body><div id=nav>Home News</div><p>Story about {word}</p></body></html>"
    for word in ("rivers", "bridges", "schools", "markets")
]


def test_bytes_round_trip_keeps_counts_and_page_count() -> None:
    template = learn_static_noise(PAGES)
    restored = SiteTemplate.from_bytes(template.to_bytes())
    assert restored == template
    assert restored.page_count == 4
    assert restored.format_version == FORMAT_VERSION


def test_json_round_trip_keeps_counts_and_page_count() -> None:
    template = learn_static_noise(PAGES)
    restored = SiteTemplate.from_json(template.to_json())
    assert restored == template
    assert json.loads(template.to_json())["format_version"] == FORMAT_VERSION


def test_template_is_compact() -> None:
    template = learn_static_noise(PAGES)
    # Hashed keys with counts, not the page text.
    assert b"Home" not in template.to_bytes()
    assert len(template.to_bytes()) < 200


def test_support_is_a_fraction_of_the_pages() -> None:
    template = learn_static_noise(PAGES)
    supports = sorted(template.support(key) for key in template.counts)
    assert supports[-1] == 1.0
    assert supports[0] == 0.25
    assert template.support(12345) == 0.0


def test_old_format_version_is_rejected_with_a_clear_error() -> None:
    data = bytearray(learn_static_noise(PAGES).to_bytes())
    struct.pack_into("<H", data, 4, FORMAT_VERSION + 1)
    with pytest.raises(TemplateFormatError, match="format"):
        SiteTemplate.from_bytes(bytes(data))
    document = json.loads(learn_static_noise(PAGES).to_json())
    document["format_version"] = 0
    with pytest.raises(TemplateFormatError, match="format 0"):
        SiteTemplate.from_json(json.dumps(document))


@pytest.mark.parametrize(
    "data", [b"", b"NCST", b"XXXX" + bytes(10), b"NCST\x01\x00" + bytes(8) + b"junk"]
)
def test_garbage_bytes_are_rejected(data: bytes) -> None:
    with pytest.raises(TemplateFormatError):
        SiteTemplate.from_bytes(data)


@pytest.mark.parametrize(
    "text", ["", "[]", "{}", '{"format": "newscrawl-site-template", "format_version": 1}']
)
def test_garbage_json_is_rejected(text: str) -> None:
    with pytest.raises(TemplateFormatError):
        SiteTemplate.from_json(text)
