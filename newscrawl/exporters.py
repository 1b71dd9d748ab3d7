"""Scrapy feed exporters (`-O articles.jsonl|.json|.csv|.xml`): one record per stored article.

The items reaching the exports are PageItems, which carry the page's bytes, its parsed tree
and the extraction objects; these exporters write the stored article's fields instead.
"""

from __future__ import annotations

from typing import IO, Any, Self

from scrapy.crawler import Crawler
from scrapy.exporters import (
    CsvItemExporter,
    JsonItemExporter,
    JsonLinesItemExporter,
    XmlItemExporter,
)

from newscrawl.article_export import CSV_LIST_SEPARATOR, build_export_record
from newscrawl.items import PageItem
from newscrawl.pipelines.sql_storage import build_article_record


class ArticleRecordExport:
    """Turns each stored PageItem into its article record before the format's exporter."""

    with_html: bool = False

    @classmethod
    def from_crawler(cls, crawler: Crawler, file: IO[bytes], *args: Any, **kwargs: Any) -> Self:
        exporter = cls(file, *args, **kwargs)  # type: ignore[call-arg]
        exporter.with_html = crawler.settings.getbool("NEWSCRAWL_EXPORT_HTML")
        return exporter

    def export_item(self, item: Any) -> Any:
        if isinstance(item, PageItem):
            if item.article is None:  # not stored: nothing to export
                return None
            item = build_export_record(
                build_article_record(item, item.article), with_html=self.with_html
            )
        return super().export_item(item)  # type: ignore[misc]


class ArticleJsonLinesExporter(ArticleRecordExport, JsonLinesItemExporter):
    """JSON Lines: one article per line."""


class ArticleJsonExporter(ArticleRecordExport, JsonItemExporter):
    """A JSON array of articles."""


class ArticleXmlExporter(ArticleRecordExport, XmlItemExporter):
    """XML, one <item> per article."""


class ArticleCsvExporter(ArticleRecordExport, CsvItemExporter):
    """CSV with a header row; lists joined with "; "."""

    def __init__(self, file: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("join_multivalued", CSV_LIST_SEPARATOR)
        super().__init__(file, *args, **kwargs)
