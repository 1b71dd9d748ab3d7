"""ArticleExtractionPipeline: extract each page in a worker process, or inline with 0 workers."""

from __future__ import annotations

import logging
from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

from newscrawl.extraction import ExtractionConfig
from newscrawl.items import PageItem
from newscrawl.pipelines.extraction_config import build_extraction_config, read_extraction_workers
from newscrawl.pipelines.extraction_pool import (
    ExtractionPool,
    ExtractionTask,
    PoolClosedError,
    WorkerCrashedError,
)
from newscrawl.pipelines.extraction_pool_worker import (
    ExtractionJob,
    ExtractionOutcome,
    extract_page_job,
)
from newscrawl.pipelines.page_items import decode_body
from newscrawl.stats_keys import (
    ARTICLE_EXTRACTION_EXTRACTED,
    ARTICLE_EXTRACTION_FAILED,
    ARTICLE_EXTRACTION_PAGE_TRUNCATED,
    ARTICLE_EXTRACTION_WORKER_CRASHED,
    STAGE_KEYS,
    count_event,
)

logger = logging.getLogger(__name__)



class ArticleExtractionPipeline:
    """Runs the stages the stage pipelines listed (`item.stages`) and build_article.

    The one extraction path: `extract_page_job` in a pool of NEWSCRAWL_EXTRACTION_WORKERS
    processes, or with 0 workers the same job called inline on the reactor thread. The page is
    parsed once, there. The Article goes on `item.article`, or the reason it could not be built
    on `item.extraction_error`; SqlStoragePipeline stores or fails the page accordingly.
    """

    def __init__(
        self,
        *,
        workers: int,
        config: ExtractionConfig,
        stats: StatsCollector,
        task: ExtractionTask = extract_page_job,
    ) -> None:
        self.config = config
        self.stats = stats
        self.task = task
        # None: the jobs run inline (NEWSCRAWL_EXTRACTION_WORKERS = 0).
        self.pool = (
            ExtractionPool(workers, task=task, on_crash=self._count_crash) if workers else None
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        workers = read_extraction_workers(settings)
        assert crawler.stats is not None
        return cls(workers=workers, config=build_extraction_config(settings), stats=crawler.stats)

    def open_spider(self) -> None:
        if self.pool is None:
            logger.info("Extracting articles inline (NEWSCRAWL_EXTRACTION_WORKERS = 0)")
            return
        self.pool.start()
        logger.info(
            "Extracting articles in %d worker process(es) (%s)",
            self.pool.workers,
            self.pool.start_method,
        )

    async def close_spider(self) -> None:
        if self.pool is not None:
            await self.pool.close()

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem) or item.article is not None:
            return item
        job = self._build_job(item)
        try:
            outcome = self.task(job) if self.pool is None else await self.pool.run(job)
        except PoolClosedError:
            # Not the page's fault: it stays pending in `pages` for the next crawl.
            raise
        except WorkerCrashedError as crash:
            logger.warning("Extraction worker died twice on %s: %s", item.url, crash)
            self._fail(item, f"the worker process died twice ({crash})")
            return item
        except Exception as exc:
            # E.g. a page that cannot be pickled: fail the page, not the crawl.
            logger.warning("Cannot extract %s", item.url, exc_info=True)
            self._fail(item, repr(exc))
            return item
        self._count_stages(item, outcome)
        if outcome.truncated:
            # Cut before parsing (MAX_ELEMENTS): the article comes from the page's start only.
            logger.info("%s has too many elements; extracted from its start", item.url)
            count_event(self.stats, ARTICLE_EXTRACTION_PAGE_TRUNCATED)
        if outcome.article is None:
            logger.warning("Cannot extract %s\n%s", item.url, outcome.detail)
            self._fail(item, outcome.error or "no article")
            return item
        item.article = outcome.article
        item.word_count = outcome.word_count
        count_event(self.stats, ARTICLE_EXTRACTION_EXTRACTED)
        return item

    def _build_job(self, item: PageItem) -> ExtractionJob:
        return ExtractionJob(
            url=item.url,
            html=decode_body(item.body, item.encoding),
            title=item.title,
            template=item.template,
            stages=tuple(item.stages),
            config=self.config,
            template_includes_page=item.template_includes_page,
        )

    def _count_stages(self, item: PageItem, outcome: ExtractionOutcome) -> None:
        """Count each stage's outcome under its stats keys: applied, failed, unparsable."""
        for stage in outcome.stages:
            count_event(self.stats, STAGE_KEYS[stage.stage][stage.event])
            if stage.event == "failed":
                logger.warning(
                    "%s stage failed on %s; skipped\n%s", stage.stage, item.url, stage.detail
                )

    def _fail(self, item: PageItem, reason: str) -> None:
        item.extraction_error = reason
        count_event(self.stats, ARTICLE_EXTRACTION_FAILED)

    def _count_crash(self) -> None:
        logger.warning("An extraction worker died; the pool was replaced")
        count_event(self.stats, ARTICLE_EXTRACTION_WORKER_CRASHED)
