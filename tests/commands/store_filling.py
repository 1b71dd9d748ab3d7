"""A small migrated SQLite store for the read-only commands: feeds and articles on two sites."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy.orm import Session

from newscrawl.storage.engine import create_database_engine
from newscrawl.storage.feed_repository import FeedRepository
from newscrawl.storage.migrations import upgrade_database
from newscrawl.storage.models import Article

SITES = ("harbour.example", "valley.example")
# Article i of a site was published FIRST_PUBLISHED - i days.
FIRST_PUBLISHED = datetime(2026, 11, 20, 12, 0)
ARTICLES_PER_SITE = 4


def fill_store(path: Path) -> str:
    """Create the store at `path` and return its URL."""
    url = f"sqlite:///{path}"
    engine = create_database_engine(url)
    try:
        upgrade_database(engine)
        feeds = FeedRepository(engine)
        for site in SITES:
            for category in ("world", "sport"):
                feeds.register_feed(f"https://{site}/{category}/rss.xml", site=site,
                                    category=category)
        with Session(engine) as session:
            for site in SITES:
                for index in range(ARTICLES_PER_SITE):
                    published = FIRST_PUBLISHED - timedelta(days=index)
                    session.add(Article(
                        url=f"https://{site}/world/{index}.html",
                        title=f"{site} story {index}",
                        text=f"{site} story {index}\n\nThe first paragraph of story {index}.",
                        html="<p>The first paragraph.</p>", published_at=published,
                        authors=["A. Writer", "B. Editor"], keywords=["world"], site=site,
                        category="world", fetched_at=FIRST_PUBLISHED,
                        extracted_at=FIRST_PUBLISHED, content_hash=f"{site}{index}".ljust(64, "0"),
                        extraction_method="single", config_version="test", word_count=7,
                    ))
            session.commit()
    finally:
        engine.dispose()
    return url
