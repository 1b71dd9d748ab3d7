"""The pure sitemap module: urlsets, indexes, news fields, gzip limits and hostile XML."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta, timezone

import pytest

from newscrawl.sitemap_discovery import sitemap_urls_from_robots
from newscrawl.sitemaps import (
    SitemapError,
    decompress_gzip,
    parse_sitemap,
    parse_w3c_datetime,
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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02T10:20:30.250+01:00",
         datetime(2024, 1, 2, 10, 20, 30, 250000, tzinfo=timezone(timedelta(hours=1)))),
        ("2024-01-02 10:20:30", datetime(2024, 1, 2, 10, 20, 30, tzinfo=UTC)),
        ("20240102T102030Z", datetime(2024, 1, 2, 10, 20, 30, tzinfo=UTC)),
        ("2024-01", datetime(2024, 1, 1, tzinfo=UTC)),
        ("2024", datetime(2024, 1, 1, tzinfo=UTC)),
        ("Tue, 02 Jan 2024 10:20:30 GMT", datetime(2024, 1, 2, 10, 20, 30, tzinfo=UTC)),
        ("Tue, 2 Jan 2024 10:20:30 -0500",
         datetime(2024, 1, 2, 10, 20, 30, tzinfo=timezone(timedelta(hours=-5)))),
        ("2 January 2024", datetime(2024, 1, 2, tzinfo=UTC)),
        # European zone names email.utils leaves naive, and dotted day-first dates.
        ("Tue, 02 Jan 2024 10:20:30 CEST",
         datetime(2024, 1, 2, 10, 20, 30, tzinfo=timezone(timedelta(hours=2)))),
        ("02.01.2024 10:20 MEZ", datetime(2024, 1, 2, 10, 20, tzinfo=timezone(timedelta(hours=1)))),
        ("02.01.2024", datetime(2024, 1, 2, tzinfo=UTC)),
        ("12", None),
    ],
)
def test_every_common_date_form(text: str, expected: datetime | None) -> None:
    assert parse_w3c_datetime(text) == expected


def test_a_loc_cut_off_is_dropped_and_counted() -> None:
    parsed = parse_sitemap(b"<urlset><url><loc>http://x/a</loc></url><url><loc>http://x/page_")
    assert [e.loc for e in parsed.entries] == ["http://x/a"]
    assert parsed.truncated == 1


def test_a_url_element_cut_off_is_dropped_and_counted() -> None:
    parsed = parse_sitemap(b"<urlset><url><loc>http://x/a</loc></url><url><loc>http://x/b</loc>")
    assert [e.loc for e in parsed.entries] == ["http://x/a"]
    assert parsed.truncated == 1


def test_a_cut_off_gzip_keeps_the_whole_entries_before_the_cut() -> None:
    locs = [f"http://x/page-{n:04d}" for n in range(2000)]
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    packed = gzip.compress(f"<urlset>{body}</urlset>".encode())
    parsed = parse_sitemap(packed[: len(packed) // 2])
    found = [e.loc for e in parsed.entries]
    assert 0 < len(found) < len(locs)
    assert found == locs[: len(found)]
    assert parsed.truncated == 1


def test_a_cut_off_gzipped_text_sitemap_drops_its_last_partial_line() -> None:
    locs = [f"http://x/page-{n:04d}" for n in range(3000)]
    packed = gzip.compress("\n".join(locs).encode())
    parsed = parse_sitemap(packed[: len(packed) // 2])
    found = [e.loc for e in parsed.entries]
    assert found == locs[: len(found)] and 0 < len(found) < len(locs)
    assert parsed.truncated == 1


def test_plain_text_sitemap_with_bom_and_crlf() -> None:
    parsed = parse_sitemap(b"\xef\xbb\xbfhttp://x/a\r\n\r\n  https://x/b  \r\nmailto:c\r\n")
    assert parsed.kind == "text"
    # Every line is an entry; the spider's URL check refuses the mailto: one on its own.
    assert [e.loc for e in parsed.entries] == ["http://x/a", "https://x/b", "mailto:c"]


@pytest.mark.parametrize(
    ("body", "kind", "loc"),
    [
        (b'<rss version="2.0"><channel><link>http://x/</link><item><link>/1</link></item>'
         b"</channel></rss>", "rss", "http://x/1"),
        (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
         b'xmlns="http://purl.org/rss/1.0/"><item rdf:about="http://x/2"><title>T</title>'
         b"</item></rdf:RDF>", "rss", "http://x/2"),
        (b'<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry>'
         b'<link rel="alternate" href="http://x/3"/></entry></feed>', "atom", "http://x/3"),
        (b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="self" href="/s"/>'
         b'<link href="/4"/></entry></feed>', "atom", "http://x/4"),
        (b'{"version": "https://jsonfeed.org/version/1.1", "items": [{"url": "/5"}]}',
         "jsonfeed", "http://x/5"),
    ],
)
def test_feeds_read_as_sitemaps(body: bytes, kind: str, loc: str) -> None:
    for document in (body, gzip.compress(body)):
        parsed = parse_sitemap(document, "http://x/feed")
        assert parsed.kind == kind
        assert [e.loc for e in parsed.entries] == [loc]


def test_feed_item_title_and_date_reach_the_entry() -> None:
    body = (
        b'<rss version="2.0"><channel><item><title>It&amp;#8217;s Q&amp;amp;A</title>'
        b"<link>http://x/1</link><pubDate>Tue, 02 Jan 2024 10:20:30 GMT</pubDate></item>"
        b"</channel></rss>"
    )
    (entry,) = parse_sitemap(body).entries
    assert entry.news_title == "It\u2019s Q&A"
    assert entry.news_publication_date == datetime(2024, 1, 2, 10, 20, 30, tzinfo=UTC)


def test_news_title_in_cdata_is_unescaped_once_to_plain_text() -> None:
    body = (
        b'<urlset xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url>'
        b"<loc>http://x/a</loc><news:news><news:title><![CDATA[It&#8217;s <i>Q&amp;A</i>]]>"
        b"</news:title><news:publication_date>2024-01</news:publication_date></news:news>"
        b"</url></urlset>"
    )
    (entry,) = parse_sitemap(body).entries
    assert entry.news_title == "It\u2019s Q&A"
    assert entry.news_publication_date == datetime(2024, 1, 1, tzinfo=UTC)


def test_a_document_stops_at_its_url_limit_and_counts_the_rest() -> None:
    body = "".join(f"<url><loc>http://x/{n}</loc></url>" for n in range(12))
    parsed = parse_sitemap(f"<urlset>{body}</urlset>".encode(), max_urls=10)
    assert len(parsed.entries) == 10 and parsed.over_limit == 2


def test_a_gzip_bomb_is_refused_with_its_reason() -> None:
    bomb = gzip.compress(b"<urlset>" + b" " * (2 * 1024 * 1024))
    parsed = parse_sitemap(bomb, max_size=1024 * 1024)
    assert parsed.kind == "" and parsed.error is not None and "exceeds" in parsed.error


def test_robots_txt_in_any_casing_with_bom_crlf_and_site_map() -> None:
    body = (
        b"\xef\xbb\xbfSitemap: /first.xml\r\nSITEMAP:second.xml\r\n"
        b"site-map: https://other.example/third.xml # comment\r\n"
        b"User-agent: *\r\nDisallow: /sitemap-not.xml\r\nsitemap: /first.xml\r\n"
    )
    assert sitemap_urls_from_robots(body, "https://x.example/robots.txt") == [
        "https://x.example/first.xml",
        "https://x.example/second.xml",
        "https://other.example/third.xml",
    ]


def test_a_bare_ampersand_loses_no_entry() -> None:
    complete = b"<urlset><url><loc>http://x/a?b=1&c=2</loc></url><url><loc>http://x/b</loc></url>"
    parsed = parse_sitemap(complete + b"</urlset>")
    assert [e.loc for e in parsed.entries] == ["http://x/a?b=1&c=2", "http://x/b"]
    assert parsed.truncated == 0
    cut = parse_sitemap(complete + b"<url><loc>http://x/c")
    assert [e.loc for e in cut.entries] == ["http://x/a?b=1&c=2", "http://x/b"]
    assert cut.truncated == 1


def test_ampersands_across_chunks_and_in_cdata_are_kept_as_written() -> None:
    # Over a megabyte: many 64 KB chunks, so references and CDATA markers straddle them.
    locs = [f"http://x/p?a={n}&b=2&amp=3" for n in range(20000)]
    plain = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    cdata = "".join(f"<url><loc><![CDATA[{loc}]]></loc></url>" for loc in locs)
    for body in (plain, cdata):
        parsed = parse_sitemap(f"<urlset>{body}</urlset>".encode())
        assert [e.loc for e in parsed.entries] == locs
        assert parsed.truncated == 0


def test_upper_case_tags_and_utf16_sitemaps() -> None:
    upper = parse_sitemap(b"<URLSET><URL><LOC>http://x/a</LOC><LASTMOD>2024-01</LASTMOD></URL></URLSET>")
    assert [(e.loc, e.lastmod) for e in upper.entries] == [
        ("http://x/a", datetime(2024, 1, 1, tzinfo=UTC))
    ]
    text = '<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>http://x/b</loc></url></urlset>'
    for body in (text.encode("utf-16"), gzip.compress(text.encode("utf-16-le"))):
        assert [e.loc for e in parse_sitemap(body).entries] == ["http://x/b"]
