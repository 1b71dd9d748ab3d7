"""Quality signals per site in the stats, and due feeds in the progress line."""

from __future__ import annotations

import logging

import pytest
from scrapy.spiders import Spider
from scrapy.utils.test import get_crawler

from newscrawl.extensions.progress_log import format_progress
from newscrawl.pipelines.quality_signals import ExtractionQualityCounter, QualityThresholds


def build_counter(max_sites: int = 10) -> tuple[ExtractionQualityCounter, dict[str, object]]:
    crawler = get_crawler(Spider)
    assert crawler.stats is not None
    counter = ExtractionQualityCounter(
        crawler.stats, QualityThresholds(short_words=5, max_sites=max_sites)
    )
    return counter, crawler.stats.get_stats()


def test_empty_short_and_single_page_extractions_are_counted_per_site() -> None:
    counter, stats = build_counter()
    counter.count_article("a.example", method="neighbours", word_count=300)
    counter.count_article("a.example", method="single", word_count=3)
    counter.count_empty("a.example")
    counter.count_article("b.example", method="single", word_count=100)
    counter.publish_shares()
    assert stats["newscrawl/quality/a.example/pages"] == 3
    assert stats["newscrawl/quality/a.example/short"] == 1
    assert stats["newscrawl/quality/a.example/empty"] == 1
    assert stats["newscrawl/quality/a.example/single"] == 1
    assert stats["newscrawl/quality/a.example/poor_share"] == 0.667
    assert stats["newscrawl/quality/a.example/single_share"] == 0.333
    assert stats["newscrawl/quality/b.example/single_share"] == 1.0


def test_sites_beyond_the_limit_share_one_set_of_keys() -> None:
    counter, stats = build_counter(max_sites=2)
    for site in ("a.example", "b.example", "c.example", "d.example"):
        counter.count_article(site, method="single", word_count=100)
    assert stats["newscrawl/quality/_other/pages"] == 2
    assert not any(key.startswith("newscrawl/quality/c.example") for key in stats)


def test_a_site_whose_extraction_breaks_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    counter, _ = build_counter()
    for _ in range(25):
        counter.count_empty("broken.example")
    counter.count_article("broken.example", method="single", word_count=200)
    with caplog.at_level(logging.WARNING):
        counter.publish_shares()
    assert "Extraction looks broken on broken.example" in caplog.text


def test_progress_line_names_due_feeds() -> None:
    line = format_progress({"response_received_count": 3}, {"a|world": 2}, feeds_due=4)
    assert line.endswith(", 4 feeds due")
    assert "feeds due" not in format_progress({}, {})
