"""The SQL article store: models, engines, migrations and repositories."""

from newscrawl.storage.article_repository import ArticleRepository
from newscrawl.storage.crawl_run_repository import CrawlRunRepository
from newscrawl.storage.engine import DEFAULT_DATABASE_URL, create_database_engine
from newscrawl.storage.migrations import upgrade_database
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import ArticleRecord, PageRecord, build_group_key

__all__ = [
    "DEFAULT_DATABASE_URL",
    "ArticleRecord",
    "ArticleRepository",
    "CrawlRunRepository",
    "PageRecord",
    "PageRepository",
    "build_group_key",
    "create_database_engine",
    "upgrade_database",
]
