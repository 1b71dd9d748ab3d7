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


def rss_items(*items: bytes) -> bytes:
    body = b"".join(b"<item>" + item + b"</item>" for item in items)
    return b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>' + body + (
        b"</channel></rss>"
    )


def test_json_feed_1_0_and_1_1() -> None:
    one = (
        b'{"version": "https://jsonfeed.org/version/1", "title": "J", "items": ['
        b'{"id": "1", "url": "/a", "title": "A &amp; B", "date_published": "2024-01-02T03:04:05Z",'
        b' "author": {"name": "Ann"}, "tags": ["World", "Europe"]},'
        b'{"id": "http://x.example/b", "content_text": "no url"},'
        b'{"id": "urn:x", "title": "nowhere"}]}'
    )
    parsed = parse_feed(one, "http://x.example/feed.json", "application/json")
    assert parsed.version == "json1" and parsed.title == "J"
    assert [(e.link, e.title) for e in parsed.entries] == [
        ("http://x.example/a", "A & B"), ("http://x.example/b", None)
    ]
    first = parsed.entries[0]
    assert first.published == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert first.authors == ("Ann",) and first.category == "world"
    assert parsed.entries_without_link == ("nowhere",)
    eleven = (
        b'\xef\xbb\xbf{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1",'
        b' "external_url": "https://y.example/c", "authors": [{"name": "Bo"}, {"url": "u"}]}]}'
    )
    (entry,) = parse_feed(eleven, "http://x.example/f", "application/feed+json").entries
    assert entry.link == "https://y.example/c" and entry.authors == ("Bo",)


def test_json_that_is_no_json_feed_is_no_feed() -> None:
    assert not parse_feed(b'{"items": []}', "http://x.example/f", "application/json").is_feed


@pytest.mark.parametrize(
    "kind",
    ["application/rss+xml", "application/atom+xml", "application/rdf+xml", "text/xml",
     "application/xml", "application/feed+json", "application/json", "text/rss+xml"],
)
def test_every_feed_type_is_discovered(kind: str) -> None:
    page = f'<html><head><link rel="alternate" type="{kind}" href="/f"></head></html>'
    assert discover_feed_links(page.encode(), "http://x.example/a/") == ["http://x.example/f"]


def test_links_that_are_no_feeds_are_not_discovered() -> None:
    page = (
        b'<html><head><link rel="alternate" type="application/json" href="/wp-json/wp/v2/1">'
        b'<link rel="alternate" type="application/json+oembed" href="/oembed">'
        b'<link rel="stylesheet" type="text/css" href="/s.css"></head>'
        b'<body><a href="/about.html">About</a></body></html>'
    )
    assert discover_feed_links(page, "http://x.example/") == []


def test_anchors_named_like_feeds_are_the_fallback() -> None:
    page = (
        b"<html><body><a href='/about.html'>About</a><a href='/feed/'>RSS</a>"
        b"<a href='news.rss'>News</a><a href='/atom.xml'>Atom</a>"
        b"<a href='/index.php?format=rss'>x</a><a href='/feedback.html'>Feedback</a>"
        b"<a href='/rss/world'>World</a><a href='/atomic-energy/'>Atoms</a>"
        b"<a href='/help/rss-explained.html'>What is RSS?</a>"
        b"<a href='https://feeds.feedburner.com/Example'>Subscribe</a>"
        b"<a href='http://[::1'>broken</a></body></html>"
    )
    assert discover_feed_links(page, "http://x.example/s/") == [
        "http://x.example/feed/", "http://x.example/s/news.rss", "http://x.example/atom.xml",
        "http://x.example/index.php?format=rss", "http://x.example/rss/world",
        "https://feeds.feedburner.com/Example",
    ]


def test_anchors_are_ignored_when_the_page_announces_a_feed() -> None:
    page = (
        b'<html><head><link rel="alternate" type="application/rss+xml" href="/rss">'
        b"</head><body><a href='/feed/'>RSS</a></body></html>"
    )
    assert discover_feed_links(page, "http://x.example/") == ["http://x.example/rss"]


def test_feed_titles_are_plain_text() -> None:
    parsed = parse_feed(
        rss_items(
            b"<title>It&amp;#8217;s Q&amp;amp;A</title><link>http://x/1</link>",
            b"<title><![CDATA[It&#8217;s <b>Q&amp;A</b>]]></title><link>http://x/2</link>",
        ),
        "http://x/feed",
    )
    assert [e.title for e in parsed.entries] == ["It\u2019s Q&A", "It\u2019s Q&A"]


def test_an_email_only_author_is_no_name() -> None:
    parsed = parse_feed(
        rss_items(
            b"<link>http://x/1</link><author>jane@example.com</author>",
            b"<link>http://x/2</link><author>jane@example.com (Jane Doe)</author>",
        ),
        "http://x/feed",
    )
    assert [e.authors for e in parsed.entries] == [(), ("Jane Doe",)]


def test_a_megabyte_author_is_emptied_before_feedparser_sees_it() -> None:
    # Without the cap, feedparser's quadratic e-mail regex runs for many minutes on this.
    long_author = b"<author>" + b"a" * (1024 * 1024) + b"@example.com</author>"
    parsed = parse_feed(
        rss_items(b"<link>http://x/1</link>" + long_author, b"<link>http://x/2</link>"),
        "http://x/feed",
    )
    assert [e.link for e in parsed.entries] == ["http://x/1", "http://x/2"]
    assert parsed.entries[0].authors == () and parsed.capped_fields == 1


def test_an_unclosed_megabyte_author_is_emptied_too() -> None:
    body = rss_items(b"<link>http://x/1</link>")[:-len(b"</channel></rss>")]
    body += b"<item><link>http://x/2</link><dc:creator>" + b"b" * (1024 * 1024)
    parsed = parse_feed(body, "http://x/feed")
    assert parsed.capped_fields == 1
    assert parsed.entries[0].link == "http://x/1"


def test_surrogate_references_keep_every_entry() -> None:
    parsed = parse_feed(
        rss_items(
            b"<title>One</title><link>http://x/1</link>",
            b"<title>Two &#xD800; &#55357;</title><link>http://x/2</link>",
            b"<title>Three &#0;</title><link>http://x/3</link>",
            b"<title>Four &#x1F600;</title><link>http://x/4</link>",
        ),
        "http://x/feed",
    )
    assert [e.title for e in parsed.entries] == [
        "One", "Two \ufffd \ufffd", "Three \ufffd", "Four \U0001f600"
    ]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
def test_utf16_and_utf32_feeds(encoding: str) -> None:
    text = (
        f'<?xml version="1.0" encoding="{encoding.upper()}"?><rss version="2.0"><channel>'
        "<item><title>\u00e9t\u00e9 \u65e5\u672c</title><link>http://x/1</link></item>"
        "</channel></rss>"
    )
    body = text.encode(encoding)
    (entry,) = parse_feed(body, "http://x/feed", "application/rss+xml").entries
    assert entry.title == "\u00e9t\u00e9 \u65e5\u672c"


def test_comment_feeds_give_way_to_article_feeds() -> None:
    page = (
        b'<html><head><link rel="alternate" type="application/rss+xml" href="/feed/">'
        b'<link rel="alternate" type="application/rss+xml" href="/comments/feed/">'
        b'<link rel="alternate" type="application/rss+xml" href="/2024/story/feed/"></head></html>'
    )
    assert discover_feed_links(page, "http://x.example/") == [
        "http://x.example/feed/", "http://x.example/2024/story/feed/"
    ]
    only_comments = b'<link rel="alternate" type="application/rss+xml" href="/comments/feed/">'
    assert discover_feed_links(only_comments, "http://x.example/") == [
        "http://x.example/comments/feed/"
    ]
