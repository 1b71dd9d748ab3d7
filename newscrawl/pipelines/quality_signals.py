"""Extraction-quality signals per site in the crawl stats, so a redesign that breaks a site shows.

Keys: newscrawl/quality/<site>/{pages,empty,short,single,poor_share,single_share}. Sites
beyond the first `max_sites` are counted together under "_other", to bound the stats.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass

from scrapy.statscollectors import StatsCollector

from newscrawl.stats_keys import QualityEvent, build_quality_key, count_event

logger = logging.getLogger(__name__)

OTHER_SITES = "_other"
# A site whose empty-or-short share passes this (over enough pages) is logged as suspect.
POOR_SHARE_WARNING = 0.5
MIN_PAGES_FOR_WARNING = 20


@dataclass(frozen=True)
class QualityThresholds:
    """What counts as a very short extraction, and how many sites get their own keys."""

    short_words: int = 50
    max_sites: int = 100


class ExtractionQualityCounter:
    """Counts empty, very short and single-page extractions per site."""

    def __init__(self, stats: StatsCollector, thresholds: QualityThresholds) -> None:
        self.stats = stats
        self.thresholds = thresholds
        self._counts: dict[str, Counter[str]] = {}

    def count_article(self, site: str, *, method: str, word_count: int) -> None:
        """Count a stored article; short ones and single-page ones are signals."""
        site = self._site_key(site)
        self._inc(site, "pages")
        if word_count < self.thresholds.short_words:
            self._inc(site, "short")
        if method == "single":
            self._inc(site, "single")

    def count_empty(self, site: str) -> None:
        """Count a page where no article text was found."""
        site = self._site_key(site)
        self._inc(site, "pages")
        self._inc(site, "empty")

    def publish_shares(self) -> None:
        """Set the share stats of every site, and log sites whose extraction looks broken."""
        for site, counts in sorted(self._counts.items()):
            pages = counts["pages"]
            if not pages:
                continue
            poor = (counts["empty"] + counts["short"]) / pages
            self.stats.set_value(build_quality_key(site, "poor_share"), round(poor, 3))
            self.stats.set_value(
                build_quality_key(site, "single_share"), round(counts["single"] / pages, 3)
            )
            if pages >= MIN_PAGES_FOR_WARNING and poor > POOR_SHARE_WARNING:
                logger.warning(
                    "Extraction looks broken on %s: %.0f%% of %d pages empty or very short",
                    site, 100 * poor, pages,
                )

    def _site_key(self, site: str) -> str:
        if site in self._counts or len(self._counts) < self.thresholds.max_sites:
            return site
        return OTHER_SITES

    def _inc(self, site: str, event: QualityEvent) -> None:
        self._counts.setdefault(site, Counter())[event] += 1
        count_event(self.stats, build_quality_key(site, event))
