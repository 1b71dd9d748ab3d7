"""The pure feed module: every feed flavour to entries, and feed discovery in HTML."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from newscrawl.feeds import discover_feed_links, parse_feed
from tests.spiders import feed_documents as docs


def test_rss_091_entry_has_absolute_link_and_title() -> None:
    parsed = parse_feed(docs.RSS_091, "http://old.example/rss.xml")
    assert parsed.version.startswith("rss09")
    assert [(e.link, e.title) for e in parsed.entries] == [
        ("http://old.example/local/harbour.html", "Harbour reopens")
    ]


def test_rss_10_reads_dublin_core_author_date_and_subject() -> None:
    parsed = parse_feed(docs.RSS_10, "http://rdf.example/index.rdf")
    (entry,) = parsed.entries
    assert parsed.version == "rss10"
    assert entry.link == "http://rdf.example/science/comet.html"
    assert entry.authors == ("Ada Byron",)
    assert entry.published == datetime(2026, 11, 2, 8, 30, tzinfo=UTC)
    assert entry.category == "astronomy"


def test_rss_20_entries_resolve_relative_links_and_keep_metadata() -> None:
    parsed = parse_feed(docs.RSS_20, "https://www.daily.example/feeds/main.xml")
    first, second = parsed.entries
    assert first.link == "https://www.daily.example/politics/budget.html"
    assert first.title == "Budget passes"
    assert first.published == datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
    assert first.authors == ("Jo Smith", "Ann Lee")
    assert first.category == "politics"
    assert first.keywords == ("Politics", "Money")
    assert second.category is None
    assert parsed.category == "front page"


def test_entries_without_link_are_reported_not_returned() -> None:
    parsed = parse_feed(docs.RSS_20, "https://www.daily.example/feeds/main.xml")
    assert parsed.entries_without_link == ("Live blog",)
    assert all(e.link for e in parsed.entries)


def test_atom_entry_date_is_converted_to_utc() -> None:
    parsed = parse_feed(docs.ATOM, "https://atom.example/atom.xml")
    (entry,) = parsed.entries
    assert parsed.version == "atom10"
    assert entry.published == datetime(2026, 11, 3, 8, 0, tzinfo=UTC)
    assert entry.authors == ("Mo Chen",)
    assert entry.category == "technology"
    assert parsed.entries_without_link == ("No link entry",)


def test_html_page_is_not_a_feed() -> None:
    assert not parse_feed(docs.HTML_WITH_FEEDS, "https://x.example/").is_feed


def test_a_body_that_names_a_local_file_is_never_opened(tmp_path: Path) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_bytes(docs.RSS_091)
    parsed = parse_feed(str(secret).encode(), "https://x.example/feed")
    assert not parsed.entries


def test_discovery_finds_rss_and_atom_links_only() -> None:
    links = discover_feed_links(docs.HTML_WITH_FEEDS, "https://www.daily.example/news/")
    assert links == ["https://www.daily.example/rss.xml", "https://cdn.example/atom.xml"]


@pytest.mark.parametrize("body", [docs.HTML_WITHOUT_FEEDS, b"", b"\x00\xff binary"])
def test_discovery_on_pages_without_feeds_is_empty(body: bytes) -> None:
    assert discover_feed_links(body, "https://x.example/") == []


def test_feed_external_entities_are_not_resolved() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/hostname">]>'
        b'<rss version="2.0"><channel><title>T</title><item><title>&x;</title>'
        b"<link>http://a.example/x</link></item></channel></rss>"
    )
    parsed = parse_feed(body, "http://a.example/feed")
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else ""
    assert [e.link for e in parsed.entries] == ["http://a.example/x"]
    assert not hostname or hostname not in (parsed.entries[0].title or "")


def test_feed_billion_laughs_does_not_expand() -> None:
    lol = b"".join(b'<!ENTITY l%d "%s">' % (i, b"&l%d;" % (i - 1) * 10) for i in range(1, 10))
    body = (
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY l0 "lol">' + lol + b"]>"
        b'<rss version="2.0"><channel><title>&l9;</title><item><title>x</title>'
        b"<link>http://a.example/x</link></item></channel></rss>"
    )
    parsed = parse_feed(body, "http://a.example/feed")
    assert len(parsed.title or "") < 10_000
