"""Poll intervals: parsing, the feed's own ttl / sy:updatePeriod, adaptation and backoff."""

from __future__ import annotations

import pytest

from newscrawl.poll_schedule import (
    IntervalError,
    PollBounds,
    compute_backoff,
    compute_next_interval,
    parse_interval,
    read_declared_interval,
)

BOUNDS = PollBounds(every=900.0, minimum=60.0, maximum=6 * 3600.0)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30.0), ("15m", 900.0), ("1h", 3600.0), ("1d", 86400.0), ("45", 45.0),
     ("1.5h", 5400.0), (" 2M ", 120.0), (90, 90.0)],
)
def test_intervals_parse_with_units(text: str | int, seconds: float) -> None:
    assert parse_interval(text) == seconds


@pytest.mark.parametrize("text", ["", "15 minutes", "-5m", "0s", "m", "1w"])
def test_bad_intervals_are_clear_errors(text: str) -> None:
    with pytest.raises(IntervalError):
        parse_interval(text)


def test_rss_ttl_is_minutes_at_channel_level() -> None:
    body = b"<rss><channel><ttl>30</ttl><item><ttl>1</ttl></item></channel></rss>"
    assert read_declared_interval(body) == 1800.0


def test_item_level_ttl_is_ignored() -> None:
    body = b"<rss><channel><item><ttl>5</ttl></item></channel></rss>"
    assert read_declared_interval(body) is None


def test_syndication_period_divided_by_frequency() -> None:
    body = (
        b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"'
        b' xmlns="http://purl.org/rss/1.0/" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">'
        b"<channel><sy:updatePeriod>daily</sy:updatePeriod>"
        b"<sy:updateFrequency>4</sy:updateFrequency></channel></rdf:RDF>"
    )
    assert read_declared_interval(body) == 6 * 3600.0


def test_atom_update_period_without_frequency_means_once() -> None:
    body = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"'
        b' xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">'
        b"<sy:updatePeriod>hourly</sy:updatePeriod></feed>"
    )
    assert read_declared_interval(body) == 3600.0


def test_the_longer_of_ttl_and_update_period_wins() -> None:
    body = (
        b'<rss xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel><ttl>10</ttl>'
        b"<sy:updatePeriod>hourly</sy:updatePeriod></channel></rss>"
    )
    assert read_declared_interval(body) == 3600.0


@pytest.mark.parametrize(
    "body",
    [b"", b"not xml at all", b"<rss><channel><ttl>soon</ttl></channel></rss>",
     b"<rss><channel><ttl>0</ttl></channel></rss>",
     b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><rss><channel><ttl>&e;</ttl>'
     b"</channel></rss>"],
)
def test_missing_or_bad_hints_give_none(body: bytes) -> None:
    assert read_declared_interval(body) is None


def test_busy_feed_is_polled_more_often_down_to_the_minimum() -> None:
    interval = 900.0
    for _ in range(10):
        interval = compute_next_interval(interval, entries=10, new_entries=9, bounds=BOUNDS)
    assert interval == 60.0


def test_quiet_feed_is_polled_less_often_up_to_the_maximum() -> None:
    interval = 900.0
    seen = []
    for _ in range(20):
        interval = compute_next_interval(interval, entries=10, new_entries=0, bounds=BOUNDS)
        seen.append(interval)
    assert seen[0] > 900.0
    assert seen == sorted(seen)
    assert interval == 6 * 3600.0


def test_a_few_new_entries_keep_the_interval() -> None:
    assert compute_next_interval(900.0, entries=10, new_entries=2, bounds=BOUNDS) == 900.0


def test_first_poll_starts_from_every() -> None:
    assert compute_next_interval(None, entries=10, new_entries=2, bounds=BOUNDS) == 900.0


def test_declared_ttl_is_a_floor_even_for_busy_feeds() -> None:
    interval = compute_next_interval(
        900.0, entries=10, new_entries=10, bounds=BOUNDS, declared=3600.0
    )
    assert interval == 3600.0


def test_declared_period_beyond_the_maximum_is_honoured() -> None:
    interval = compute_next_interval(
        900.0, entries=10, new_entries=0, bounds=BOUNDS, declared=86400.0
    )
    assert interval == 86400.0


def test_every_shorter_than_the_minimum_lowers_the_floor() -> None:
    bounds = PollBounds(every=2.0, minimum=60.0, maximum=3600.0)
    assert compute_next_interval(2.0, entries=4, new_entries=4, bounds=bounds) == 2.0


def test_backoff_doubles_per_failure_up_to_the_maximum() -> None:
    waits = [compute_backoff(n, interval=900.0, bounds=BOUNDS) for n in range(1, 8)]
    assert waits[:4] == [900.0, 1800.0, 3600.0, 7200.0]
    assert waits[-1] == 6 * 3600.0
