"""Scrapy settings for newscrawl. Every newscrawl setting is named NEWSCRAWL_*.

Each NEWSCRAWL_* default is declared here once; components read a setting with this module's
value as the fallback, as in `settings.getint("NEWSCRAWL_NEIGHBOURS",
project_settings.NEWSCRAWL_NEIGHBOURS)`, so that crawlers built without the project settings
(tests, scripts) get the same defaults. README's settings table documents each one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

BOT_NAME = "newscrawl"
SPIDER_MODULES = ["newscrawl.spiders"]
NEWSPIDER_MODULE = "newscrawl.spiders"
# `crawl` is ours: exit codes and one-line argument errors (README, "Exit codes").
COMMANDS_MODULE = "newscrawl.scrapy_commands"

ROBOTSTXT_OBEY = True
USER_AGENT = "newscrawl/0.1 (+https://github.com/newscrawl/newscrawl)"
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 8
# Scrapy starts this many asyncio tasks for every response's output; an article response
# yields one item, so the default 100 only costs reactor time (bench/crawl_speed.py).
CONCURRENT_ITEMS = 16
DOWNLOAD_TIMEOUT = 30
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
# `-O articles.jsonl` and the like export each stored article's fields, not the page item.
FEED_EXPORTERS = {
    "json": "newscrawl.exporters.ArticleJsonExporter",
    "jsonlines": "newscrawl.exporters.ArticleJsonLinesExporter",
    "jsonl": "newscrawl.exporters.ArticleJsonLinesExporter",
    "jl": "newscrawl.exporters.ArticleJsonLinesExporter",
    "csv": "newscrawl.exporters.ArticleCsvExporter",
    "xml": "newscrawl.exporters.ArticleXmlExporter",
}
# Add the article's cleaned HTML to those exports (the raw page is never exported).
NEWSCRAWL_EXPORT_HTML = False
LOG_LEVEL = "INFO"

# The stage pipelines (200-400) keep the order of newscrawl/extraction/stages.py's STAGES, where
# the stage order is declared; tests/pipelines/test_stage_order.py checks that they agree.
ITEM_PIPELINES = {
    "newscrawl.pipelines.neighbour_buffer.NeighbourBufferPipeline": 100,
    "newscrawl.pipelines.static_noise.StaticNoisePipeline": 200,
    "newscrawl.pipelines.dynamic_noise.DynamicNoisePipeline": 300,
    "newscrawl.pipelines.title_relevance.TitleRelevancePipeline": 400,
    # Runs the stages listed above and builds the article: in NEWSCRAWL_EXTRACTION_WORKERS
    # worker processes, or inline with 0.
    "newscrawl.pipelines.article_extraction.ArticleExtractionPipeline": 800,
    "newscrawl.pipelines.sql_storage.SqlStoragePipeline": 900,
}
EXTENSIONS = {
    # Before crawl_runs, so that its spider_closed stats include the peak.
    "newscrawl.extensions.peak_memory.PeakMemoryExtension": 490,
    "newscrawl.extensions.crawl_runs.CrawlRunsExtension": 500,
    "newscrawl.extensions.progress_log.ProgressLogExtension": 510,
    "newscrawl.extensions.robots_txt_log.RobotsTxtLogExtension": 520,
}

# Storage. SQLite (WAL) by default; PostgreSQL as postgresql+psycopg://user@host/db.
# The environment variable of the same name wins, so that workers are set up by environment.
DEFAULT_DATABASE_URL = "sqlite:///newscrawl.db"
NEWSCRAWL_DATABASE_URL = os.environ.get("NEWSCRAWL_DATABASE_URL", DEFAULT_DATABASE_URL)
# Apply pending Alembic migrations when a crawl starts.
NEWSCRAWL_MIGRATE_ON_START = True
# Writes (pages admitted, articles stored, pages failed) committed in one transaction, and the
# seconds the first waiting write waits for company before its batch commits.
NEWSCRAWL_WRITE_BATCH_SIZE = 50
NEWSCRAWL_WRITE_BATCH_DELAY = 0.05
# Where fetched pages wait while the database is down; empty: `.newscrawl-spool` beside the
# SQLite file, else in the working directory.
NEWSCRAWL_SPOOL_DIR = ""

# Neighbour buffer: pages per (site, category) group needed to learn a static-noise template.
NEWSCRAWL_NEIGHBOURS = 10
# Smallest group that gets a partial template at the end of a crawl; smaller ones: single-page.
NEWSCRAWL_MIN_NEIGHBOURS = 2
# Re-learn a template this many seconds after it was learned (site redesigns), 0 = never.
NEWSCRAWL_TEMPLATE_MAX_AGE = 7 * 24 * 3600
# ... or once this many new pages of its group arrived since, 0 = never.
NEWSCRAWL_TEMPLATE_MAX_PAGES = 1000

# Extraction: "default" (best) or "paper" (the seed papers as written); stage switches.
NEWSCRAWL_EXTRACTION_CONFIG = "default"
NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED = True
NEWSCRAWL_STATIC_NOISE_ENABLED = True
NEWSCRAWL_DYNAMIC_NOISE_ENABLED = True
NEWSCRAWL_TITLE_RELEVANCE_ENABLED = True
NEWSCRAWL_SQL_STORAGE_ENABLED = True
# Extraction worker processes (forkserver): the stages and build_article run there, off the
# reactor thread. One uses a second core while the crawl process keeps the first (reactor,
# database threads); more help only with cores to spare. 0 = inline on the reactor thread.
NEWSCRAWL_EXTRACTION_WORKERS = 1

# Operations: one crawl_runs row per crawl, and a progress log line every N seconds (0 = off).
NEWSCRAWL_CRAWL_RUNS_ENABLED = True
NEWSCRAWL_PROGRESS_INTERVAL = 60.0
# The crawl process's peak RSS in the stats (newscrawl/peak_memory/rss_bytes) and the log.
NEWSCRAWL_PEAK_MEMORY_ENABLED = True

# Re-polling (docs/operations.md). Feed state (ETag/Last-Modified, schedule, failures) and the
# seen-URL check live in the database. Empty poll interval = crawl each feed once.
NEWSCRAWL_FEED_STATE_ENABLED = True
NEWSCRAWL_POLL_INTERVAL = ""  # e.g. "15m"; `-a every=15m` wins
NEWSCRAWL_POLL_MIN_INTERVAL = "1m"
NEWSCRAWL_POLL_MAX_INTERVAL = "6h"
NEWSCRAWL_FEED_MAX_FAILURES = 10
# Seconds between checks for due feeds, and how long a worker holds a claimed due feed.
NEWSCRAWL_POLL_TICK = 1.0
NEWSCRAWL_POLL_LEASE = "5m"
NEWSCRAWL_SEEN_URL_CACHE_SIZE = 100_000
# Polling crawls always skip known article URLs; one-shot crawls re-fetch them unless True.
NEWSCRAWL_SKIP_SEEN_URLS = False
# Extraction-quality signals: articles under this many words count as very short.
NEWSCRAWL_QUALITY_SHORT_WORDS = 50
NEWSCRAWL_QUALITY_MAX_SITES = 100

# Spiders: the URL directory (0 = first; numeric ones skipped) that names the category
# when the feed or sitemap gives none.
NEWSCRAWL_CATEGORY_SEGMENT = 0
# Largest sitemap accepted once gunzipped, in bytes (the sitemap protocol allows 50 MB).
NEWSCRAWL_SITEMAP_MAX_SIZE = 50 * 1024 * 1024
# Article URLs taken from sitemaps per crawl; the rest are counted (url_over_crawl_limit).
# Each sitemap document is also read only up to the protocol's 50,000 URLs.
NEWSCRAWL_SITEMAP_MAX_URLS = 1_000_000

# Hostile input (docs/hostile-input.md). The SSRF guard refuses URLs (redirects too) that
# resolve to private, loopback, link-local or reserved addresses, except those allowlisted
# here as host names or IPs/CIDRs, e.g. ["127.0.0.1"] for loopback test servers.
DOWNLOADER_MIDDLEWARES = {
    "newscrawl.middlewares.ssrf_guard.SsrfGuardMiddleware": 60,
    "newscrawl.middlewares.tracking_params.TrackingParamsMiddleware": 70,
    # Below HttpCompressionMiddleware (590): sees bodies once decompressed.
    "newscrawl.middlewares.response_guard.ResponseGuardMiddleware": 560,
    # Between MetaRefreshMiddleware (580) and HttpCompressionMiddleware (590).
    "newscrawl.middlewares.meta_refresh_guard.MetaRefreshGuardMiddleware": 585,
    # Above RedirectMiddleware (600): sees a redirect before it is followed.
    "newscrawl.middlewares.redirect_loops.RedirectLoopMiddleware": 610,
}
SPIDER_MIDDLEWARES = {
    # Around start() and the callbacks: both read feed state, so the database may be down.
    "newscrawl.middlewares.database_outage.DatabaseOutageMiddleware": 100,
}
NEWSCRAWL_SSRF_GUARD = True
NEWSCRAWL_SSRF_ALLOWLIST: list[str] = []
# Strip utm_*, fbclid, gclid... and fragments from URLs so duplicates collapse into one.
NEWSCRAWL_STRIP_TRACKING_PARAMS = True
# The query parameters stripped (`name`, or a prefix as `name*`): campaign and click ids
# added by newsletters, ad networks and social sites.
NEWSCRAWL_TRACKING_PARAMS = [
    "utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid",
    "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_enc_id",
    "oly_anon_id", "vero_id", "rb_clickid", "s_cid", "ncid", "cmpid", "ref_src", "spm",
]
# Log and count empty and binary bodies; re-decode pages whose declared charset is wrong.
NEWSCRAWL_RESPONSE_GUARD = True
# Article pages and feeds larger than this are cancelled (logged, counted as article_failed):
# real news pages stay far below, and extraction time grows with size. Sitemaps get their
# own cap, NEWSCRAWL_SITEMAP_MAX_SIZE.
DOWNLOAD_MAXSIZE = 5 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024

# Scale-out (docs/scale-out.md): with a Redis URL (setting or environment variable), the
# scheduler queue and dupefilter are shared through scrapy-redis by every worker using it.
ADDONS = {"newscrawl.addons.redis_frontier.RedisFrontierAddon": 0}
NEWSCRAWL_REDIS_URL = os.environ.get("NEWSCRAWL_REDIS_URL", "")
# A worker whose shared queue ran dry closes after this many idle seconds (0 = at once).
NEWSCRAWL_FRONTIER_IDLE_CLOSE = 30.0
# Seconds one worker holds the right to fetch a re-polled (dont_filter) URL; others skip it.
NEWSCRAWL_FRONTIER_LEASE = 600.0


def read_database_url(settings: BaseSettings) -> str:
    """NEWSCRAWL_DATABASE_URL, else the default declared here (environment included)."""
    return str(settings.get("NEWSCRAWL_DATABASE_URL") or NEWSCRAWL_DATABASE_URL)
