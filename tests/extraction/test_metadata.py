"""Metadata: headline, publish date, authors, canonical URL, top image, site name."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta, timezone

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction import ExtractionConfig, extract
from newscrawl.extraction.authors import clean_author_names
from newscrawl.extraction.metadata import (
    PageMetadata,
    _iter_jsonld_articles,
    _strip_site_name,
    _strip_site_name_pattern,
    extract_metadata,
    find_canonical_url,
    find_headline,
    find_published_date,
    find_top_image,
    index_tags,
    parse_date,
    parse_date_line,
    read_meta_tags,
    split_title,
)


def read(page: str, url: str | None = None) -> PageMetadata:
    return extract_metadata(lxml.html.document_fromstring(page), url)


def page_with(head: str = "", body: str = "<p>Text.</p>", lang: str = "en") -> str:
    return f'<html lang="{lang}"><head>{head}</head><body>{body}</body></html>'


def jsonld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_jsonld_article_gives_every_field() -> None:
    head = jsonld(
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "WebSite", "name": "Example News"},
                {
                    "@type": "NewsArticle",
                    "headline": "Mayor opens the new bridge",
                    "datePublished": "2024-03-05T09:30:00+01:00",
                    "author": [{"@type": "Person", "name": "Ana Silva"}, {"name": "Bo Chen"}],
                    "image": {
                        "@type": "ImageObject",
                        "url": "/img/bridge.jpg",
                        "caption": "The bridge at dawn",
                    },
                    "publisher": {"@type": "Organization", "name": "Example News"},
                },
            ],
        }
    )
    meta = read(page_with(head), "https://news.example/city/bridge")
    assert meta.title == "Mayor opens the new bridge"
    assert meta.published == datetime(2024, 3, 5, 9, 30, tzinfo=timezone(timedelta(hours=1)))
    assert meta.authors == ["Ana Silva", "Bo Chen"]
    assert meta.image_url == "https://news.example/img/bridge.jpg"
    assert meta.image_caption == "The bridge at dawn"
    assert meta.site_name == "Example News"
    assert meta.language == "en"


def test_broken_jsonld_is_ignored_and_meta_tags_are_used() -> None:
    head = (
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": </script>'
        '<meta property="og:title" content="Storm hits the coast">'
        '<meta property="article:published_time" content="2023-11-02T17:05:00Z">'
        '<meta name="author" content="By Jane Doe">'
        '<meta property="og:site_name" content="Coast Daily">'
    )
    meta = read(page_with(head))
    assert meta.title == "Storm hits the coast"
    assert meta.published == datetime(2023, 11, 2, 17, 5, tzinfo=UTC)
    assert meta.authors == ["Jane Doe"]
    assert meta.site_name == "Coast Daily"


def test_jsonld_with_trailing_comma_and_comment_wrapper_still_parses() -> None:
    head = (
        '<script type="application/ld+json"><!-- {"@type": "Article", '
        '"datePublished": "2020-01-02", "author": "Kim Lee",} --></script>'
    )
    meta = read(page_with(head))
    assert meta.published == datetime(2020, 1, 2)
    assert meta.authors == ["Kim Lee"]


def test_og_title_loses_the_site_name_suffix() -> None:
    head = (
        '<meta property="og:title" content="Rates rise again | Money Times">'
        '<meta property="og:site_name" content="Money Times">'
    )
    assert read(page_with(head)).title == "Rates rise again"


def test_headline_falls_back_to_h1_then_longest_title_segment() -> None:
    assert read(page_with("", "<h1> Big  news </h1>")).title == "Big news"
    page = page_with("<title>BBC NEWS | Technology | Robots learn to cook dinner</title>")
    assert read(page).title == "Robots learn to cook dinner"
    page = page_with("<title>Forbes.com: Chips get faster</title>")
    assert read(page).title == "Chips get faster"


def test_section_names_and_logos_do_not_make_the_headline() -> None:
    head = "<title>FOXNews.com - Jolie Film About Pearl Praised - Celebrity | Entertainment</title>"
    body = "<h1><a href='/e'>Entertainment</a></h1><h1>Jolie Film About Pearl Praised</h1>"
    assert read(page_with(head, body)).title == "Jolie Film About Pearl Praised"
    head = "<title>Studios Unsure About Ads -- Vulture -- New York Magazine</title>"
    assert read(page_with(head, "<h1>New York Magazine</h1>")).title == "Studios Unsure About Ads"


def test_double_escaped_entities_in_og_title_are_decoded() -> None:
    head = '<meta property="og:title" content="AT&amp;amp;T bets on phones">'
    assert read(page_with(head)).title == "AT&T bets on phones"


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Site - A long headline about things", "A long headline about things"),
        ("A long headline about things \u2014 Site", "A long headline about things"),
        ("Well-known author: a profile", "Well-known author: a profile"),
        ("", ""),
    ],
)
def test_split_title(title: str, expected: str) -> None:
    assert split_title(title) == expected


def test_time_element_gives_the_date() -> None:
    body = (
        '<p>By <span class="byline">Sam Ortiz</span></p><time datetime="2019-07-04">July 4</time>'
    )
    meta = read(page_with("", body))
    assert meta.published == datetime(2019, 7, 4)
    assert meta.authors == ["Sam Ortiz"]


def test_url_gives_the_date_when_the_page_has_none() -> None:
    meta = read(page_with(), "https://example.org/2018/02/09/some-story.html")
    assert meta.published == datetime(2018, 2, 9)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.org/news/some-story-20191115/", datetime(2019, 11, 15)),
        ("https://example.org/news/story_20191115.html", datetime(2019, 11, 15)),
        # An id that merely starts like a date is no date.
        ("https://example.org/news/story-201911151234/", None),
    ],
)
def test_compact_url_dates(url: str, expected: datetime | None) -> None:
    assert read(page_with(), url).published == expected


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        # Meta names of older CMSs, one with slashes.
        (
            '<meta name="publish_date" content="2007-05-22">',
            "",
            datetime(2007, 5, 22),
        ),
        (
            '<meta name="OriginalPublicationDate" content="2005/10/13 10:36:40">',
            "",
            datetime(2005, 10, 13, 10, 36, 40),
        ),
        # A date in words in a meta tag, and JSON-LD too broken to parse.
        (
            '<meta name="publication_date" content="29 Mar 2017">',
            "",
            datetime(2017, 3, 29),
        ),
        (
            '<script type="application/ld+json">{"@type": "NewsArticle", '
            '"datePublished": "2017-04-08T18:00:01+00:00",}</script>',
            "",
            datetime(2017, 4, 8, 18, 0, 1, tzinfo=UTC),
        ),
        # hAtom: the machine-readable date is the abbr's title.
        (
            "",
            '<abbr class="published" title="2009-02-12T21:40:00-06:00">Feb 12</abbr>',
            datetime(2009, 2, 12, 21, 40, tzinfo=timezone(timedelta(hours=-6))),
        ),
        # A date line: an element whose class names a date, leading with one.
        (
            "",
            '<div class="story-date">Wednesday, March 04, 2009 Last Update: 08:55</div>',
            datetime(2009, 3, 4),
        ),
        (
            "",
            "<article><header><span class=date>Dec 4, 2013 3:30 pm UTC</span></header></article>",
            datetime(2013, 12, 4, 15, 30, tzinfo=UTC),
        ),
        # The site header's clock comes first in the page, the article's date line later.
        (
            "",
            '<div id="header"><div class="date">Sunday | April 9, 2017</div></div>'
            '<p>Story.</p><span id="datePublished">2017-04-07</span>',
            datetime(2017, 4, 7),
        ),
        (
            "",
            '<aside><p class="date">May 1, 2015</p></aside>'
            '<p class="posted">Posted 2 June 2015</p>',
            datetime(2015, 6, 2),
        ),
        # Day and month in digits, in the one order the numbers allow.
        (
            "",
            '<p class="NewsDate">12/28/2005 3:13:17 PM, by Ann</p>',
            datetime(2005, 12, 28, 15, 13, 17),
        ),
        ("", '<span class="post-meta">29.03.2017</span>', datetime(2017, 3, 29)),
        ("", '<li class="timestamp">8/19/09 at 4:45 PM</li>', datetime(2009, 8, 19, 16, 45)),
        # A list of other stories, each with its date, is not this story's date line.
        (
            "",
            '<ul><li><a href="/a">A</a> <span class="date">(5/21/2005)</span></li>'
            '<li><a href="/b">B</a> <span class="date">(2/18/2002)</span></li></ul>'
            '<div class="byline">By Ann Lee, June 30, 2013</div>',
            datetime(2013, 6, 30),
        ),
        # Chrome by the start of a class token; layouts and whole-page forms are not chrome.
        (
            "",
            '<div class="sidebar-box"><p class="date">May 1, 2015</p></div>'
            '<form id="aspnetForm"><div class="right-sidebar node-promoted">'
            '<p class="date">June 2, 2015</p></div></form>',
            datetime(2015, 6, 2),
        ),
        # An abbreviation holding a date, and a date in the og:image URL.
        ("", "<cite>By Ann <abbr>June 30, 2013</abbr></cite>", datetime(2013, 6, 30)),
        (
            '<meta property="og:image" content="https://img.example/2017/03/28/a.jpg">',
            "",
            datetime(2017, 3, 28),
        ),
    ],
)
def test_dates_without_structured_data(head: str, body: str, expected: datetime) -> None:
    assert read(page_with(head, body)).published == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("June 30, 2013", datetime(2013, 6, 30)),
        ("by Sean Gallagher - Dec 4, 2013 3:30 pm UTC", datetime(2013, 12, 4, 15, 30, tzinfo=UTC)),
        ("From the November 28, 2005 issue", datetime(2005, 11, 28)),
        ("Published time: 28 Mar, 2017 11:16", datetime(2017, 3, 28, 11, 16)),
        ("Sept. 8 2005", datetime(2005, 9, 8)),
        ("the 4th of July, 2009", datetime(2009, 7, 4)),
        ("Posted 2009/03/10 and March 1, 2009", datetime(2009, 3, 10)),
        ("March 1, 2009, updated 2009-03-10", datetime(2009, 3, 1)),
        ("09.18.09, 06:50 PM EDT", datetime(2009, 9, 18, 18, 50)),
        ("(2/18/2002)", datetime(2002, 2, 18)),
        ("29.03.2017 and 04.05.2017", datetime(2017, 3, 29)),
        # Ambiguous day and month, no day, no such day, too early, no date at all.
        ("12/03/2009", None),
        ("04.08.05, 1:21 PM ET", None),
        ("31.02.2017", None),
        ("3/4-2009", None),
        ("May 2009", None),
        ("Mayor 12 2009", None),
        ("February 30, 2009", None),
        ("March 4, 1990", None),
        ("Updated two hours ago", None),
    ],
)
def test_parse_date_line(line: str, expected: datetime | None) -> None:
    assert parse_date_line(line) == expected


@pytest.mark.parametrize(
    "body",
    [
        "<p>Datum: 22.03.2009</p>",
        '<div class="info">Veröffentlicht am 22. März 2009</div>',
        "<p>Some text 2009-03-22 more</p>",
    ],
)
def test_htmldate_is_asked_only_when_the_caller_opts_in(body: str) -> None:
    root = lxml.html.document_fromstring(page_with(body=body))
    assert extract_metadata(root, None).published is None
    found = extract_metadata(root, None, htmldate_fallback=True).published
    assert found == datetime(2009, 3, 22)


def test_the_engine_passes_the_htmldate_switch_on() -> None:
    page = page_with(body="<p>A story with enough words to keep.</p><p>Datum: 22.03.2009</p>")
    assert extract(page).published is None
    assert extract(page, config=ExtractionConfig(htmldate_fallback=True)).published == datetime(
        2009, 3, 22
    )


def test_date_lines_are_read_up_to_a_bound() -> None:
    stories = [
        f'<li><a href="/{i}">Story {i}</a> <span class="date">June {1 + i % 28}, 2013</span></li>'
        for i in range(60)
    ]
    byline = '<p class="byline">By Ann Lee, May 2, 2014</p>'
    # Behind a short list of dated stories the byline's date is found; behind a page of them
    # the search stops first.
    short = page_with(body=f"<ul>{''.join(stories[:3])}</ul>{byline}")
    assert read(short).published == datetime(2014, 5, 2)
    assert read(page_with(body=f"<ul>{''.join(stories)}</ul>{byline}")).published is None


def test_a_date_deep_inside_a_long_container_is_not_a_date_line() -> None:
    filler = "Words of the story go on here. " * 10
    body = f'<div class="update-panel">{filler}June 30, 2013</div>'
    assert read(page_with(body=body)).published is None


def test_no_date_anywhere_gives_none() -> None:
    assert read(page_with(body="<p>No date here at all.</p>")).published is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2021-05-06T07:08:09Z", datetime(2021, 5, 6, 7, 8, 9, tzinfo=UTC)),
        ("2021-05-06", datetime(2021, 5, 6)),
        ("Thu, 06 May 2021 07:08:09 GMT", datetime(2021, 5, 6, 7, 8, 9, tzinfo=UTC)),
        ("20210506", datetime(2021, 5, 6)),
        ("2021-5-6 7:08", datetime(2021, 5, 6, 7, 8)),
        ("yesterday", None),
        ("", None),
        ("2021-13-45", None),
        ("1066-10-14", None),
    ],
)
def test_parse_date(value: str, expected: datetime | None) -> None:
    assert parse_date(value) == expected


@pytest.mark.parametrize(
    ("byline", "expected"),
    [
        ("By John Smith", ["John Smith"]),
        ("By John Smith and Mary Jones", ["John Smith", "Mary Jones"]),
        ("Published 3:45 PM ET, Mon March 4, 2019", []),
        ("5 Minute Read", []),
        ("By Ann Lee, Staff Writer", ["Ann Lee"]),
        ("JENNIFER BAIN in Boston", ["JENNIFER BAIN"]),
        ("Posted by: Tom Ray | Updated 2 hours ago", ["Tom Ray"]),
        # A desk or agency that is the whole byline is the author, as the page gives it.
        ("CNN", ["CNN"]),
        ("https://www.facebook.com/someone", []),
        ("jane@example.com", []),
        ("Associated Press", ["Associated Press"]),
        ("Von dpa", ["dpa"]),
        ("von David Straub", ["David Straub"]),
        ("Par Le Figaro", ["Le Figaro"]),
        ("Por Ana García y Luis Pérez", ["Ana García", "Luis Pérez"]),
        ("Av Kari Nordmann og Ola Nordmann", ["Kari Nordmann", "Ola Nordmann"]),
        ("Di Viviana Mazza", ["Viviana Mazza"]),
        ("Текст: Ярослав Кузишин", ["Ярослав Кузишин"]),
        ("신현주 기자", ["신현주"]),
        ("Elena Oberholzer (obe)", ["Elena Oberholzer"]),
        ("(Image: Getty Images)", []),
        ("View author archive", []),
        ("Sie haben einen Fehler gefunden?", []),
        ("Deutsche Welle (www.dw.com)", []),
        ("Finian Cunningham. Sputnik International", ["Finian Cunningham"]),
        ("Jasper Riemann und Barbara Schneider", ["Jasper Riemann", "Barbara Schneider"]),
        ("Anna Berg, Tom Ray and Lea Kurz", ["Anna Berg", "Tom Ray", "Lea Kurz"]),
        ("John Doe (john@example.com)", ["John Doe"]),
        ("April Ryan", ["April Ryan"]),
        ("Ed Hornick CNN", ["Ed Hornick"]),
        ("byamberphillips", []),
        ("Post Wires", []),
        ("Marlaina Schiavo, Nancy Grace Producers", ["Marlaina Schiavo"]),
        ("Richard A. Serrano", ["Richard A. Serrano"]),
    ],
)
def test_clean_author_names(byline: str, expected: list[str]) -> None:
    assert clean_author_names(byline) == expected


def test_author_equal_to_the_site_name_is_dropped() -> None:
    head = (
        '<meta property="og:site_name" content="The Valley Tribune">'
        '<meta name="author" content="The Valley Tribune">'
    )
    body = '<div class="article-byline">By Lena Park</div>'
    assert read(page_with(head, body)).authors == ["Lena Park"]


def test_rel_author_link_is_a_byline() -> None:
    body = '<p>Story by <a rel="author" href="/people/rk">Ravi Kumar</a></p>'
    assert read(page_with(body=body)).authors == ["Ravi Kumar"]


def test_canonical_url_is_absolute() -> None:
    head = '<link rel="canonical" href="/news/42">'
    assert read(page_with(head), "https://ex.com/a?utm=1").canonical_url == "https://ex.com/news/42"
    og = '<meta property="og:url" content="https://ex.com/news/43">'
    assert read(page_with(og)).canonical_url == "https://ex.com/news/43"
    bad = '<link rel="canonical" href="javascript:alert(1)">'
    assert read(page_with(bad), "https://ex.com/").canonical_url is None


def test_og_image_takes_the_caption_of_its_figure() -> None:
    head = '<meta property="og:image" content="https://cdn.ex.com/w1200/lead.jpg">'
    body = (
        '<figure><img src="https://cdn.ex.com/w600/other.jpg"><figcaption>Other</figcaption></figure>'
        '<figure><img src="https://cdn.ex.com/w600/lead.jpg"><figcaption> Crowds gather '
        "outside</figcaption></figure>"
    )
    meta = read(page_with(head, body))
    assert meta.image_url == "https://cdn.ex.com/w1200/lead.jpg"
    assert meta.image_caption == "Crowds gather outside"


def test_first_figure_image_when_no_og_image() -> None:
    body = '<figure><img src="/pics/a.png" alt="A chart"></figure>'
    meta = read(page_with(body=body), "https://ex.com/story")
    assert meta.image_url == "https://ex.com/pics/a.png"
    assert meta.image_caption == "A chart"


def test_data_uri_image_is_never_the_top_image() -> None:
    head = '<meta property="og:image" content="data:image/png;base64,AAAA">'
    assert read(page_with(head)).image_url is None


def test_empty_page_gives_empty_metadata() -> None:
    meta = read("<html><body></body></html>")
    assert meta == PageMetadata()


def test_marked_publish_date_beats_an_earlier_time_element() -> None:
    body = (
        '<div class="clock"><time datetime="2024-01-01T08:00">now</time></div>'
        '<span itemprop="datePublished" content="2023-06-07">June 7</span>'
    )
    assert read(page_with(body=body)).published == datetime(2023, 6, 7)


def test_marked_dates_are_taken_in_document_order() -> None:
    clock = '<div class="clock"><time datetime="2024-01-01T08:00">now</time></div>'
    pubdate = '<time pubdate datetime="2022-02-03">Feb 3</time>'
    itemprop = '<span itemprop="datePublished" content="2023-06-07">June 7</span>'
    first = read(page_with(body=clock + pubdate + itemprop)).published
    assert first == datetime(2022, 2, 3)
    second = read(page_with(body=clock + itemprop + pubdate)).published
    assert second == datetime(2023, 6, 7)


_TITLE_CHARS = st.sampled_from(list("ab AB-|:\u2013\u00bb\t\u00a0xSk\u017f\u212aé"))


@settings(max_examples=300, deadline=None)
@given(
    name=st.text(alphabet=st.sampled_from(list("abAB xSk-|K:")), min_size=1, max_size=4),
    parts=st.lists(st.one_of(st.text(alphabet=_TITLE_CHARS, max_size=4), st.just("")), max_size=4),
    name_at=st.lists(st.booleans(), max_size=4),
)
def test_site_name_is_stripped_like_the_pattern(
    name: str, parts: list[str], name_at: list[bool]
) -> None:
    name = name.strip() or "a"
    # Put the name (in a random case mix) between some parts, where it can match.
    title = "".join(
        (name.swapcase() if flag else name) + part if flag is not None else part
        for part, flag in zip(parts, name_at + [None] * len(parts), strict=False)
    )
    assert _strip_site_name(title, name) == _strip_site_name_pattern(title, name)


def test_site_name_is_stripped_from_either_end_only() -> None:
    assert _strip_site_name("Example News | Mayor opens bridge", "Example News") == (
        "Mayor opens bridge"
    )
    assert _strip_site_name("Mayor opens bridge \u2013 EXAMPLE NEWS ", "Example News") == (
        "Mayor opens bridge"
    )
    assert _strip_site_name("Example News reports", "Example News") == "Example News reports"
    assert _strip_site_name(" | Example News", "Example News") == " | Example News"


# Tags in unusual places: metadata in the body, an SVG title, figures and times deep inside.
SCATTERED = (
    '<html><head><title>Flood closes the bridge | Gazette</title><meta property="og:url" '
    'content="/story"><link rel="alternate" href="/feed"></head><body>'
    "<svg><title>icon</title></svg><h1>Gazette</h1><h1>Flood closes the bridge</h1>"
    '<meta name="author" content="Ann Lee"><div><time>not a date</time>'
    '<time datetime="2021-03-04T05:06:07Z">4 March</time></div>'
    '<figure><img src="/a.jpg" alt="River"><figcaption>The river</figcaption></figure>'
    '<link rel="canonical" href="https://example.com/flood">'
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Flood"}</script>'
    "<p>Text.</p></body></html>"
)


def test_one_walk_finds_what_a_walk_per_tag_finds() -> None:
    root = lxml.html.document_fromstring(SCATTERED)
    tags = index_tags(root)
    for tag, elements in tags.items():
        assert elements == list(root.iter(tag))
    assert len(tags["h1"]) == 2 and len(tags["title"]) == 2


def test_readers_agree_with_and_without_the_tag_index() -> None:
    root = lxml.html.document_fromstring(SCATTERED)
    tags = index_tags(root)
    metas = read_meta_tags(root)
    assert read_meta_tags(root, tags=tags) == metas
    articles = list(_iter_jsonld_articles(root))
    assert list(_iter_jsonld_articles(root, tags=tags)) == articles and articles
    url = "https://example.com/x"
    assert find_canonical_url(root, metas, url, tags=tags) == find_canonical_url(root, metas, url)
    assert find_top_image(root, metas, articles, url, tags=tags) == find_top_image(
        root, metas, articles, url
    )
    assert find_headline(root, metas, articles, "Gazette", tags=tags) == find_headline(
        root, metas, articles, "Gazette"
    )
    published = find_published_date(root, metas, articles, None, tags=tags)
    assert published == find_published_date(root, metas, articles, None)
    assert published == datetime(2021, 3, 4, 5, 6, 7, tzinfo=UTC)
    metadata = extract_metadata(root, url)
    # Without the headline search only the title is missing.
    assert extract_metadata(root, url, headline=False) == dataclasses.replace(metadata, title=None)
    assert metadata.canonical_url == "https://example.com/flood"
    assert metadata.image_url == "https://example.com/a.jpg"
    assert metadata.image_caption == "The river"
    assert metadata.title == "Flood closes the bridge"
    assert metadata.authors == ["Ann Lee"]
