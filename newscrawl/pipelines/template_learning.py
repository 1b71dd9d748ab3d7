"""TemplateLearner: learns a group's template from its stored pages, and says when to re-learn.

Learning runs in a worker thread, inside the repository's per-group lock, so that concurrent
workers learn a group once.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from newscrawl.extraction import ExtractionConfig, learn_static_noise
from newscrawl.pipelines.neighbour_settings import NeighbourSettings
from newscrawl.pipelines.page_items import decode_body
from newscrawl.pipelines.page_spooling import is_database_outage
from newscrawl.stats_keys import (
    NEIGHBOUR_BUFFER_TEMPLATE_ERRORS,
    NEIGHBOUR_BUFFER_TEMPLATES_LEARNED,
    count_event,
)
from newscrawl.storage.page_repository import PageRepository
from newscrawl.storage.records import Admission, LearnedTemplate, TemplateRecord
from newscrawl.storage.retry import run_in_thread_with_retry

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)


class TemplateLearner:
    """Learns, stores and judges the templates of the groups in `pages`."""

    def __init__(
        self,
        pages: PageRepository,
        settings: NeighbourSettings,
        config: ExtractionConfig,
        stats: StatsCollector,
    ) -> None:
        self.pages = pages
        self.settings = settings
        self.config = config
        self.stats = stats

    async def learn_template(
        self, group_key: str, *, replaces: datetime | None, min_pages: int | None = None
    ) -> TemplateRecord | None:
        """Learn (or fetch the newer) template; None if the group is too small or learning failed.

        A failure is logged and counted, not raised: the page is stored either way, and a
        group that cannot be learned still ends in single-page mode at the idle flush. A
        database outage is raised: the caller stops the crawl, which says so once.
        """
        neighbours = self.settings.neighbours
        try:
            return await run_in_thread_with_retry(
                self.pages.learn_template,
                group_key,
                partial(self._learn_from_bodies, asyncio.get_running_loop()),
                max_pages=neighbours,
                min_pages=min_pages if min_pages is not None else neighbours,
                replaces=replaces,
            )
        except Exception as error:
            if is_database_outage(error):
                raise
            logger.error("Cannot learn the template of %r", group_key, exc_info=True)
            count_event(self.stats, NEIGHBOUR_BUFFER_TEMPLATE_ERRORS)
            return None

    def _learn_from_bodies(
        self, loop: asyncio.AbstractEventLoop, bodies: list[tuple[bytes, str | None]]
    ) -> LearnedTemplate:
        """Runs in a worker thread, inside the repository's per-group lock."""
        template = learn_static_noise(
            [decode_body(body, encoding) for body, encoding in bodies], self.config
        )
        # Scrapy's stats are not thread-safe: count on the event loop.
        loop.call_soon_threadsafe(count_event, self.stats, NEIGHBOUR_BUFFER_TEMPLATES_LEARNED)
        return LearnedTemplate(
            template=template.to_bytes(),
            format_version=template.format_version,
            page_count=template.page_count,
            config_version=self.config.version,
        )

    def is_stale(self, stored: TemplateRecord, admission: Admission) -> bool:
        """A template is re-learned when old, outgrown, partial, or from another config."""
        if stored.config_version != self.config.version:
            return True
        age = datetime.now(UTC) - stored.learned_at
        max_age = self.settings.template_max_age
        if max_age is not None and age > max_age:
            return True
        since = admission.pages_since_template
        max_pages = self.settings.template_max_pages
        if max_pages > 0 and since >= max_pages:
            return True
        neighbours = self.settings.neighbours
        return stored.page_count < neighbours <= stored.page_count + since

    async def list_learned_from(
        self, stored: TemplateRecord | None, page_id: int | None = None
    ) -> set[int]:
        """Ids of the pages `stored` was learned from; only asked when `page_id` may be one."""
        if stored is None or (page_id is not None and page_id > stored.last_page_id):
            return set()
        return await run_in_thread_with_retry(self.pages.list_template_pages, stored)
