"""The publish date: real offsets, naive local times, and the time a later source adds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import lxml.html
import pytest

from newscrawl.extraction.metadata import extract_metadata
from newscrawl.extraction.published_dates import choose_published_date, read_time_after

BERLIN_SUMMER = timezone(timedelta(hours=2))
DAY_ONLY_JSONLD = (
    '<script type="application/ld+json">'
    '{"@type": "NewsArticle", "datePublished": "2024-06-03"}</script>'
)


def published(head: str = "", body: str = "", url: str | None = None) -> datetime | None:
    page = f"<html><head>{head}</head><body><article>{body}<p>Text.</p></article></body></html>"
    return extract_metadata(lxml.html.document_fromstring(page), url).published


def test_a_german_offset_is_kept_not_turned_into_utc() -> None:
    head = '<meta property="article:published_time" content="2024-06-03T10:20:00+02:00">'
    found = published(head)
    assert found == datetime(2024, 6, 3, 10, 20, tzinfo=BERLIN_SUMMER)
    assert found is not None and found.utcoffset() == timedelta(hours=2)


def test_a_date_without_an_offset_stays_naive() -> None:
    found = published('<meta name="date" content="2024-06-03T10:20:00">')
    assert found == datetime(2024, 6, 3, 10, 20)
    assert found is not None and found.tzinfo is None


def test_the_time_of_a_later_source_on_the_same_day_is_kept() -> None:
    # JSON-LD gives only the day; the page's <time> gives the minute and offset.
    head = DAY_ONLY_JSONLD
    body = '<time datetime="2024-06-03T10:20:00+02:00">3. Juni 2024, 10:20 Uhr</time>'
    assert published(head, body) == datetime(2024, 6, 3, 10, 20, tzinfo=BERLIN_SUMMER)


def test_a_later_source_on_another_day_is_not_taken() -> None:
    head = DAY_ONLY_JSONLD
    body = '<time datetime="2024-06-04T08:00:00+02:00">4. Juni</time>'
    assert published(head, body) == datetime(2024, 6, 3)


def test_the_url_day_takes_the_time_of_the_date_line() -> None:
    body = '<p class="date">June 3, 2024 at 4:45 PM</p>'
    found = published(body=body, url="https://example.org/news/story-20240603/")
    assert found == datetime(2024, 6, 3, 16, 45)


def test_colon_spelled_meta_names_are_read() -> None:
    head = '<meta property="article:published:time" content="2024-10-23T15:48:15+00:00">'
    assert published(head) == datetime(2024, 10, 23, 15, 48, 15, tzinfo=UTC)


@pytest.mark.parametrize(
    ("candidates", "expected"),
    [
        ([], None),
        # A naive time is completed by the same minute with its offset, not by another time.
        (
            [datetime(2024, 6, 3, 10, 20), datetime(2024, 6, 3, 10, 20, tzinfo=BERLIN_SUMMER)],
            datetime(2024, 6, 3, 10, 20, tzinfo=BERLIN_SUMMER),
        ),
        (
            [datetime(2024, 6, 3, 10, 20), datetime(2024, 6, 3, 8, 20, tzinfo=UTC)],
            datetime(2024, 6, 3, 10, 20),
        ),
        # The first with an offset ends the search.
        (
            [datetime(2024, 6, 3, tzinfo=UTC), datetime(2024, 6, 3, 9, 0, tzinfo=UTC)],
            datetime(2024, 6, 3, tzinfo=UTC),
        ),
    ],
)
def test_choose_published_date(candidates: list[datetime], expected: datetime | None) -> None:
    assert choose_published_date(candidates) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (", 10:20 Uhr", datetime(2024, 6, 3, 10, 20)),
        (" um 14.05 Uhr", datetime(2024, 6, 3, 14, 5)),
        (" à 10h30", datetime(2024, 6, 3, 10, 30)),
        (" 3:30 pm UTC", datetime(2024, 6, 3, 15, 30, tzinfo=UTC)),
        (" 10:20 +02:00", datetime(2024, 6, 3, 10, 20, tzinfo=BERLIN_SUMMER)),
        (" 25:61", datetime(2024, 6, 3)),
        (" Last update 10:20", datetime(2024, 6, 3)),
    ],
)
def test_read_time_after(text: str, expected: datetime) -> None:
    assert read_time_after(text, datetime(2024, 6, 3)) == expected
