"""The pure sitemap module: urlsets, indexes, news fields, gzip limits and hostile XML."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta, timezone

import pytest

from newscrawl.sitemaps import (
    SitemapError,
    decompress_gzip,
    parse_sitemap,
    parse_w3c_datetime,
    sitemap_urls_from_robots,
)
from tests.spiders import feed_documents as docs


def test_urlset_entries_keep_loc_and_lastmod() -> None:
    parsed = parse_sitemap(docs.URLSET)
    assert parsed.kind == "urlset"
    assert [e.loc for e in parsed.entries][:2] == [
        "https://site.example/world/old.html",
        "https://site.example/world/new.html",
    ]
    assert parsed.entries[1].lastmod == datetime(2026, 11, 10, 12, tzinfo=UTC)
    assert parsed.entries[2].lastmod is None


def test_news_sitemap_keeps_title_date_keywords_and_ignores_image_title() -> None:
    (entry,) = parse_sitemap(docs.NEWS_SITEMAP).entries
    assert entry.news_title == "Merger agreed"
    assert entry.news_publication_date == datetime(2026, 11, 15, 7, 45, tzinfo=UTC)
    assert entry.news_keywords == ("merger", "banks", "finance")
    assert entry.news_language == "en"
    assert entry.date == entry.news_publication_date


def test_index_locs_resolve_against_the_index_url() -> None:
    parsed = parse_sitemap(docs.SITEMAP_INDEX, "https://site.example/sitemap_index.xml")
    assert parsed.kind == "sitemapindex"
    assert parsed.entries[-1].loc == "https://site.example/news-sitemap.xml"


@pytest.mark.parametrize("body", [b"", b"<html><body>404</body></html>", b"\x1f\x8bjunk", b"<<<"])
def test_documents_that_are_not_sitemaps_have_no_kind(body: bytes) -> None:
    assert parse_sitemap(body).kind == ""


def test_external_entities_are_never_resolved() -> None:
    parsed = parse_sitemap(docs.ENTITY_SITEMAP)
    assert all("localhost" not in e.loc and "\n" not in e.loc for e in parsed.entries)


def test_billion_laughs_does_not_expand() -> None:
    lol = b"".join(
        b'<!ENTITY l%d "%s">' % (i, b"&l%d;" % (i - 1) * 10)
        for i in range(1, 10)
    )
    body = (
        b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY l0 "lol">' + lol + b"]>"
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>https://x.example/&l9;</loc></url></urlset>"
    )
    parsed = parse_sitemap(body)
    assert sum(len(e.loc) for e in parsed.entries) < 10_000


def test_gzip_round_trip() -> None:
    assert decompress_gzip(docs.gzip_bytes(docs.URLSET)) == docs.URLSET


def test_gzip_bomb_is_refused() -> None:
    bomb = gzip.compress(b"\0" * (5 * 1024 * 1024))
    with pytest.raises(SitemapError, match="exceeds"):
        decompress_gzip(bomb, max_size=1024 * 1024)


def test_broken_gzip_is_an_error() -> None:
    with pytest.raises(SitemapError):
        decompress_gzip(b"\x1f\x8b\x08\x00garbage")


def test_robots_sitemap_lines_are_absolute() -> None:
    assert sitemap_urls_from_robots(docs.ROBOTS, "https://site.example/robots.txt") == [
        "https://site.example/sitemap_index.xml",
        "https://site.example/news-sitemap.xml",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-01", datetime(2026, 11, 1, tzinfo=UTC)),
        ("2026-11-01T10:00:00Z", datetime(2026, 11, 1, 10, tzinfo=UTC)),
        ("2026-11-01T10:00+02:00", datetime(2026, 11, 1, 10, tzinfo=timezone(timedelta(hours=2)))),
        ("yesterday", None),
        ("", None),
    ],
)
def test_w3c_datetimes(text: str, expected: datetime | None) -> None:
    assert parse_w3c_datetime(text) == expected
