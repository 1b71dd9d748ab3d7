"""Stats keys: every event newscrawl counts, named newscrawl/<component>/<event>, and count_event.

Each key is declared here once, and every component counts it through `count_event`. The key
strings are what users, dashboards and tests read: renaming a constant is free, changing its
value is not. The per-site quality keys are the one family built at run time
(`build_quality_key`), because their middle part is a site name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector


def count_event(stats: StatsCollector | None, key: str, count: int = 1) -> None:
    """Add `count` to the counter `key`; nothing when there are no stats (a bare spider)."""
    if stats is not None:
        stats.inc_value(key, count)


def sum_stats(stats: Mapping[str, Any], keys: Iterable[str]) -> int:
    """The sum of the given counters, a missing one counting 0."""
    return sum(int(stats.get(key) or 0) for key in keys)


# --- middlewares ---
META_REFRESH_GUARD_IGNORED = "newscrawl/meta_refresh_guard/ignored"
REDIRECT_LOOPS_LOOP = "newscrawl/redirect_loops/loop"
RESPONSE_GUARD_EMPTY_BODY = "newscrawl/response_guard/empty_body"
RESPONSE_GUARD_BINARY_BODY = "newscrawl/response_guard/binary_body"
RESPONSE_GUARD_CHARSET_MIXED = "newscrawl/response_guard/charset_mixed"
RESPONSE_GUARD_CHARSET_REPAIRED = "newscrawl/response_guard/charset_repaired"
SSRF_GUARD_REFUSED = "newscrawl/ssrf_guard/refused"
SSRF_GUARD_UNRESOLVED = "newscrawl/ssrf_guard/unresolved"
TRACKING_PARAMS_STRIPPED = "newscrawl/tracking_params/stripped"

# --- extensions and scheduler ---
FRONTIER_IDLE_IDLE_WAITS = "newscrawl/frontier_idle/idle_waits"
PEAK_MEMORY_RSS_BYTES = "newscrawl/peak_memory/rss_bytes"
LEASING_SCHEDULER_LEASED_ELSEWHERE = "newscrawl/leasing_scheduler/leased_elsewhere"
# Scrapy's and scrapy-redis's own keys, which the leasing scheduler counts as they would.
SCHEDULER_DUPEFILTER_FILTERED = "dupefilter/filtered"
SCHEDULER_ENQUEUED_REDIS = "scheduler/enqueued/redis"
SCHEDULER_DEQUEUED_REDIS = "scheduler/dequeued/redis"
SCRAPY_KEYS = frozenset(
    {SCHEDULER_DUPEFILTER_FILTERED, SCHEDULER_ENQUEUED_REDIS, SCHEDULER_DEQUEUED_REDIS}
)

# --- spiders: what both polling spiders count, each under its own name ---
RSS_ARTICLE_FAILED = "newscrawl/rss/article_failed"
RSS_BAD_URL = "newscrawl/rss/bad_url"
RSS_FEED_DEAD = "newscrawl/rss/feed_dead"
RSS_FEED_FAILED = "newscrawl/rss/feed_failed"
RSS_FEED_STATE_NOT_SAVED = "newscrawl/rss/feed_state_not_saved"
RSS_KNOWN_ARTICLE_SKIPPED = "newscrawl/rss/known_article_skipped"
RSS_PAGE_FETCHED = "newscrawl/rss/page_fetched"
SITEMAP_ARTICLE_FAILED = "newscrawl/sitemap/article_failed"
SITEMAP_BAD_URL = "newscrawl/sitemap/bad_url"
SITEMAP_SITEMAP_DEAD = "newscrawl/sitemap/sitemap_dead"
SITEMAP_SITEMAP_FAILED = "newscrawl/sitemap/sitemap_failed"
SITEMAP_SITEMAP_STATE_NOT_SAVED = "newscrawl/sitemap/sitemap_state_not_saved"
SITEMAP_KNOWN_ARTICLE_SKIPPED = "newscrawl/sitemap/known_article_skipped"
SITEMAP_PAGE_FETCHED = "newscrawl/sitemap/page_fetched"

# --- spiders: the RSS spider's own ---
RSS_AUTHOR_FIELD_CAPPED = "newscrawl/rss/author_field_capped"
RSS_ENTRY = "newscrawl/rss/entry"
RSS_ENTRY_WITHOUT_LINK = "newscrawl/rss/entry_without_link"
RSS_FEED_DISCOVERED = "newscrawl/rss/feed_discovered"
RSS_FEED_NOT_MODIFIED = "newscrawl/rss/feed_not_modified"
RSS_FEED_PARSED = "newscrawl/rss/feed_parsed"
RSS_FEED_UNPARSABLE = "newscrawl/rss/feed_unparsable"
RSS_NOT_A_FEED = "newscrawl/rss/not_a_feed"
RSS_XML_ENTITIES_IGNORED = "newscrawl/rss/xml_entities_ignored"

# --- spiders: the sitemap spider's own ---
SITEMAP_ENTRY_TRUNCATED = "newscrawl/sitemap/entry_truncated"
SITEMAP_FORMAT_ATOM = "newscrawl/sitemap/format_atom"
SITEMAP_FORMAT_JSONFEED = "newscrawl/sitemap/format_jsonfeed"
SITEMAP_FORMAT_RSS = "newscrawl/sitemap/format_rss"
SITEMAP_FORMAT_TEXT = "newscrawl/sitemap/format_text"
SITEMAP_FORMAT_URLSET = "newscrawl/sitemap/format_urlset"
SITEMAP_HOMEPAGE_FAILED = "newscrawl/sitemap/homepage_failed"
SITEMAP_HOMEPAGE_FEED = "newscrawl/sitemap/homepage_feed"
SITEMAP_HOMEPAGE_UNPARSABLE = "newscrawl/sitemap/homepage_unparsable"
SITEMAP_INVALID_SITEMAP = "newscrawl/sitemap/invalid_sitemap"
SITEMAP_NEWS_MERGED = "newscrawl/sitemap/news_merged"
SITEMAP_ROBOTS_SITEMAP = "newscrawl/sitemap/robots_sitemap"
SITEMAP_SITE_PROBED = "newscrawl/sitemap/site_probed"
SITEMAP_SITEMAP = "newscrawl/sitemap/sitemap"
SITEMAP_SITEMAP_FOUND_AGAIN = "newscrawl/sitemap/sitemap_found_again"
SITEMAP_SITEMAP_GUESS_MISSING = "newscrawl/sitemap/sitemap_guess_missing"
SITEMAP_SITEMAP_INDEX = "newscrawl/sitemap/sitemap_index"
SITEMAP_SITEMAP_NOT_MODIFIED = "newscrawl/sitemap/sitemap_not_modified"
SITEMAP_SITEMAP_TOO_OLD = "newscrawl/sitemap/sitemap_too_old"
SITEMAP_URL = "newscrawl/sitemap/url"
SITEMAP_URL_FILTERED = "newscrawl/sitemap/url_filtered"
SITEMAP_URL_OVER_CRAWL_LIMIT = "newscrawl/sitemap/url_over_crawl_limit"
SITEMAP_URL_OVER_SITEMAP_LIMIT = "newscrawl/sitemap/url_over_sitemap_limit"
SITEMAP_URL_TOO_OLD = "newscrawl/sitemap/url_too_old"
SITEMAP_WELL_KNOWN_SITEMAP = "newscrawl/sitemap/well_known_sitemap"
SITEMAP_XML_ENTITIES_IGNORED = "newscrawl/sitemap/xml_entities_ignored"
# A parsed sitemap's kind (newscrawl/sitemaps.py) -> its format counter.
SITEMAP_FORMAT_KEYS: Mapping[str, str] = {
    "atom": SITEMAP_FORMAT_ATOM,
    "jsonfeed": SITEMAP_FORMAT_JSONFEED,
    "rss": SITEMAP_FORMAT_RSS,
    "text": SITEMAP_FORMAT_TEXT,
    "urlset": SITEMAP_FORMAT_URLSET,
}


@dataclass(frozen=True)
class PollingSpiderKeys:
    """The keys the shared polling plumbing counts, under one spider's component."""

    article_failed: str
    bad_url: str
    known_article_skipped: str
    page_fetched: str
    source_dead: str
    source_failed: str
    source_state_not_saved: str


RSS_SPIDER_KEYS = PollingSpiderKeys(
    article_failed=RSS_ARTICLE_FAILED,
    bad_url=RSS_BAD_URL,
    known_article_skipped=RSS_KNOWN_ARTICLE_SKIPPED,
    page_fetched=RSS_PAGE_FETCHED,
    source_dead=RSS_FEED_DEAD,
    source_failed=RSS_FEED_FAILED,
    source_state_not_saved=RSS_FEED_STATE_NOT_SAVED,
)
SITEMAP_SPIDER_KEYS = PollingSpiderKeys(
    article_failed=SITEMAP_ARTICLE_FAILED,
    bad_url=SITEMAP_BAD_URL,
    known_article_skipped=SITEMAP_KNOWN_ARTICLE_SKIPPED,
    page_fetched=SITEMAP_PAGE_FETCHED,
    source_dead=SITEMAP_SITEMAP_DEAD,
    source_failed=SITEMAP_SITEMAP_FAILED,
    source_state_not_saved=SITEMAP_SITEMAP_STATE_NOT_SAVED,
)
# Spider name -> its article pages fetched (the benchmarks read them).
PAGE_FETCHED_KEYS: Mapping[str, str] = {"rss": RSS_PAGE_FETCHED, "sitemap": SITEMAP_PAGE_FETCHED}
# Counters that mean a feed or sitemap was read ...
SOURCE_READ_KEYS = (
    RSS_FEED_PARSED,
    RSS_FEED_NOT_MODIFIED,
    SITEMAP_SITEMAP,
    SITEMAP_SITEMAP_INDEX,
    SITEMAP_SITEMAP_NOT_MODIFIED,
)
# ... and those that mean one could not be fetched or held nothing readable.
SOURCE_FAILED_KEYS = (
    RSS_FEED_FAILED,
    RSS_FEED_UNPARSABLE,
    RSS_NOT_A_FEED,
    SITEMAP_SITEMAP_FAILED,
    SITEMAP_INVALID_SITEMAP,
    SITEMAP_SITEMAP_GUESS_MISSING,
)

# --- the neighbour buffer ---
NEIGHBOUR_BUFFER_CLAIM_ERRORS = "newscrawl/neighbour_buffer/claim_errors"
NEIGHBOUR_BUFFER_FLUSH_ERRORS = "newscrawl/neighbour_buffer/flush_errors"
NEIGHBOUR_BUFFER_GROUPS_FLUSHED_PARTIAL = "newscrawl/neighbour_buffer/groups_flushed_partial"
NEIGHBOUR_BUFFER_GROUPS_FLUSHED_SINGLE = "newscrawl/neighbour_buffer/groups_flushed_single"
NEIGHBOUR_BUFFER_PAGES_BUFFERED = "newscrawl/neighbour_buffer/pages_buffered"
NEIGHBOUR_BUFFER_PAGES_CLAIMED_ELSEWHERE = "newscrawl/neighbour_buffer/pages_claimed_elsewhere"
NEIGHBOUR_BUFFER_PAGES_REINJECTED_NEIGHBOURS = (
    "newscrawl/neighbour_buffer/pages_reinjected_neighbours"
)
NEIGHBOUR_BUFFER_PAGES_REINJECTED_SINGLE = "newscrawl/neighbour_buffer/pages_reinjected_single"
NEIGHBOUR_BUFFER_PAGES_STORED = "newscrawl/neighbour_buffer/pages_stored"
NEIGHBOUR_BUFFER_PAGES_WITH_TEMPLATE = "newscrawl/neighbour_buffer/pages_with_template"
NEIGHBOUR_BUFFER_STORAGE_ERRORS = "newscrawl/neighbour_buffer/storage_errors"
NEIGHBOUR_BUFFER_TEMPLATE_ERRORS = "newscrawl/neighbour_buffer/template_errors"
NEIGHBOUR_BUFFER_TEMPLATES_LEARNED = "newscrawl/neighbour_buffer/templates_learned"
NEIGHBOUR_BUFFER_TEMPLATES_STALE = "newscrawl/neighbour_buffer/templates_stale"
NEIGHBOUR_BUFFER_TEMPLATES_UNREADABLE = "newscrawl/neighbour_buffer/templates_unreadable"
# An extraction mode -> the counter of pages a flush re-injected in it.
NEIGHBOUR_BUFFER_REINJECTED_KEYS: Mapping[str, str] = {
    "neighbours": NEIGHBOUR_BUFFER_PAGES_REINJECTED_NEIGHBOURS,
    "single": NEIGHBOUR_BUFFER_PAGES_REINJECTED_SINGLE,
}

# --- the extraction stages, inline or in the pool ---
StageEvent = Literal["applied", "failed", "unparsable"]
STATIC_NOISE_APPLIED = "newscrawl/static_noise/applied"
STATIC_NOISE_FAILED = "newscrawl/static_noise/failed"
STATIC_NOISE_UNPARSABLE = "newscrawl/static_noise/unparsable"
STATIC_NOISE_SKIPPED_NO_TEMPLATE = "newscrawl/static_noise/skipped_no_template"
DYNAMIC_NOISE_APPLIED = "newscrawl/dynamic_noise/applied"
DYNAMIC_NOISE_FAILED = "newscrawl/dynamic_noise/failed"
DYNAMIC_NOISE_UNPARSABLE = "newscrawl/dynamic_noise/unparsable"
TITLE_RELEVANCE_APPLIED = "newscrawl/title_relevance/applied"
TITLE_RELEVANCE_FAILED = "newscrawl/title_relevance/failed"
TITLE_RELEVANCE_UNPARSABLE = "newscrawl/title_relevance/unparsable"
# Stage name (newscrawl.extraction.stages.STAGES) -> what it did -> its counter.
STAGE_KEYS: Mapping[str, Mapping[StageEvent, str]] = {
    "static_noise": {
        "applied": STATIC_NOISE_APPLIED,
        "failed": STATIC_NOISE_FAILED,
        "unparsable": STATIC_NOISE_UNPARSABLE,
    },
    "dynamic_noise": {
        "applied": DYNAMIC_NOISE_APPLIED,
        "failed": DYNAMIC_NOISE_FAILED,
        "unparsable": DYNAMIC_NOISE_UNPARSABLE,
    },
    "title_relevance": {
        "applied": TITLE_RELEVANCE_APPLIED,
        "failed": TITLE_RELEVANCE_FAILED,
        "unparsable": TITLE_RELEVANCE_UNPARSABLE,
    },
}
ARTICLE_EXTRACTION_EXTRACTED = "newscrawl/article_extraction/extracted"
ARTICLE_EXTRACTION_FAILED = "newscrawl/article_extraction/failed"
ARTICLE_EXTRACTION_PAGE_TRUNCATED = "newscrawl/article_extraction/page_truncated"
ARTICLE_EXTRACTION_WORKER_CRASHED = "newscrawl/article_extraction/worker_crashed"

# --- storage ---
SQL_STORAGE_ARTICLES_NEIGHBOURS = "newscrawl/sql_storage/articles_neighbours"
SQL_STORAGE_ARTICLES_SINGLE = "newscrawl/sql_storage/articles_single"
SQL_STORAGE_ARTICLES_STORED = "newscrawl/sql_storage/articles_stored"
SQL_STORAGE_EMPTY_ARTICLES = "newscrawl/sql_storage/empty_articles"
SQL_STORAGE_EXTRACTION_ERRORS = "newscrawl/sql_storage/extraction_errors"
SQL_STORAGE_STORAGE_ERRORS = "newscrawl/sql_storage/storage_errors"
# An article's method -> the counter of articles stored with it.
SQL_STORAGE_METHOD_KEYS: Mapping[str, str] = {
    "neighbours": SQL_STORAGE_ARTICLES_NEIGHBOURS,
    "single": SQL_STORAGE_ARTICLES_SINGLE,
}
SPOOL_CRAWL_STOPPED = "newscrawl/spool/crawl_stopped"
SPOOL_DAMAGED = "newscrawl/spool/damaged"
SPOOL_REPLAYED = "newscrawl/spool/replayed"
SPOOL_SPOOLED = "newscrawl/spool/spooled"
STORE_BATCH_ROWS = "newscrawl/store/batch_rows"
STORE_BATCHES = "newscrawl/store/batches"
STORE_BATCHES_SPLIT = "newscrawl/store/batches_split"
STORE_DELAYS = "newscrawl/store/delays"
# A batch writer event (storage/batch_writer.py) -> its counter.
STORE_EVENT_KEYS: Mapping[str, str] = {
    "batch_rows": STORE_BATCH_ROWS,
    "batches": STORE_BATCHES,
    "batches_split": STORE_BATCHES_SPLIT,
    "delays": STORE_DELAYS,
}

# --- extraction quality, per site: newscrawl/quality/<site>/<event> ---
QualityEvent = Literal["pages", "short", "single", "empty", "poor_share", "single_share"]


def build_quality_key(site: str, event: QualityEvent) -> str:
    """The quality counter of one site (or of "_other", the sites past the cap)."""
    return f"newscrawl/quality/{site}/{event}"
