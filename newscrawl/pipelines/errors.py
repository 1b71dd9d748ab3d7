"""Why a PageItem leaves the pipeline chain early; each maps to a DropItem log level."""

from __future__ import annotations

from scrapy.exceptions import DropItem


class PageBuffered(DropItem):
    """The page is stored and waits for its neighbours; it re-enters the chain later."""

    def __init__(self, message: str) -> None:
        # Routine, not a problem: one per page of every new group.
        super().__init__(message, log_level="DEBUG")


class PageExtractionFailed(DropItem):
    """The page could not be turned into an article; it is marked failed with the reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message, log_level="WARNING")


class PageSpooled(DropItem):
    """The database could not take the page; it is kept in the local spool for the next crawl."""

    def __init__(self, message: str) -> None:
        # The crawl's one ERROR line already says where such pages went; one line per page
        # (with the item) would bury it.
        super().__init__(message, log_level="DEBUG")


class PageKeptPending(DropItem):
    """The database failed after the page was stored: it stays pending for the next crawl."""

    def __init__(self, message: str) -> None:
        super().__init__(message, log_level="DEBUG")
