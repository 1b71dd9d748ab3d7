"""The local page spool: durable entries that read back exactly, one per URL."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from newscrawl.storage.records import PageRecord
from newscrawl.storage.spool import (
    PageSpool,
    SpoolEntryError,
    build_spool_directory,
    decode_page_record,
    encode_page_record,
)


def build_record(
    url: str = "https://example.org/a.html", body: bytes = b"<p>\xff\x00x</p>"
) -> PageRecord:
    return PageRecord(
        url=url,
        site="example.org",
        category="world",
        body=body,
        fetched_at=datetime(2026, 11, 22, 16, 0, tzinfo=UTC),
        encoding="cp1252",
        title="Ein Titel – mit Strich",
        feed_url="https://example.org/rss.xml",
        published_at=datetime(2026, 11, 21, 8, 30, tzinfo=UTC),
        authors=["A. Writer"],
        keywords=["harbour"],
        http_status=203,
    )


def test_record_round_trips_with_binary_body() -> None:
    record = build_record()
    assert decode_page_record(encode_page_record(record)) == record


def test_record_without_optional_fields_round_trips() -> None:
    record = PageRecord(
        url="https://example.org/b", site="example.org", category="c", body=b"",
        fetched_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert decode_page_record(encode_page_record(record)) == record


@pytest.mark.parametrize(
    "data", [b"", b"{", b"[]", b'{"format_version": 99}', b'{"format_version": 1, "url": "x"}']
)
def test_damaged_entry_is_a_spool_entry_error(data: bytes) -> None:
    with pytest.raises(SpoolEntryError):
        decode_page_record(data)


def test_spooled_pages_read_back_and_are_removed(tmp_path: Path) -> None:
    spool = PageSpool(tmp_path / "spool")
    assert spool.list_entries() == []
    first = spool.spool_page(build_record("https://example.org/1"))
    second = spool.spool_page(build_record("https://example.org/2"))

    assert set(spool.list_entries()) == {first, second}
    assert spool.read_entry(first).record.url == "https://example.org/1"
    # No temporary file is left behind next to the entries.
    assert sorted(p.name for p in spool.directory.iterdir()) == sorted([first.name, second.name])

    spool.remove_entry(first)
    assert spool.list_entries() == [second]


def test_a_refetched_page_replaces_its_spooled_copy(tmp_path: Path) -> None:
    spool = PageSpool(tmp_path)
    spool.spool_page(build_record(body=b"old"))
    path = spool.spool_page(build_record(body=b"new"))
    assert spool.list_entries() == [path]
    assert spool.read_entry(path).record.body == b"new"


def test_damaged_entry_is_set_aside_not_deleted(tmp_path: Path) -> None:
    spool = PageSpool(tmp_path)
    path = spool.spool_page(build_record())
    path.write_bytes(b"{truncated")
    with pytest.raises(SpoolEntryError):
        spool.read_entry(path)
    kept = spool.set_aside_entry(path)
    assert kept.exists()
    assert spool.list_entries() == []


def test_each_database_has_its_own_spool(tmp_path: Path) -> None:
    one = build_spool_directory(tmp_path, "postgresql+psycopg://u:secret@db/one")
    same = build_spool_directory(tmp_path, "postgresql+psycopg://u:other@db/one")
    two = build_spool_directory(tmp_path, "postgresql+psycopg://u@db/two")
    assert one == same
    assert one != two
    assert one.parent == tmp_path
