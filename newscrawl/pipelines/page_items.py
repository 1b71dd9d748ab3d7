"""Convert between PageItems and the store's page records."""

from __future__ import annotations

from typing import Any

from newscrawl.extraction.decoding import decode_html
from newscrawl.items import PageItem
from newscrawl.storage.records import PageRecord, StoredPage


def build_page_record(item: PageItem) -> PageRecord:
    """What the store keeps of a fetched page."""
    return PageRecord(
        url=item.url,
        site=item.site,
        category=item.category,
        body=item.body,
        fetched_at=item.fetched_at,
        encoding=item.encoding,
        title=item.title,
        feed_url=item.feed_url,
        published_at=item.published,
        authors=list(item.authors),
        keywords=list(item.keywords),
        http_status=item.status,
    )


def build_page_item(
    stored: StoredPage, *, template: Any, extraction_mode: str, template_includes_page: bool = False
) -> PageItem:
    """A PageItem re-entering the chain from a stored page, its template already chosen."""
    record = stored.record
    return PageItem(
        url=record.url,
        site=record.site,
        category=record.category,
        body=record.body,
        encoding=record.encoding,
        title=record.title,
        feed_url=record.feed_url,
        published=record.published_at,
        authors=list(record.authors),
        keywords=list(record.keywords),
        fetched_at=record.fetched_at,
        status=record.http_status,
        page_id=stored.id,
        template=template,
        template_includes_page=template_includes_page,
        extraction_mode=extraction_mode,
    )


def decode_body(body: bytes, encoding: str | None) -> str:
    """The body as text: a BOM first, then the response's encoding, else what the page declares."""
    return decode_html(body, encoding)
