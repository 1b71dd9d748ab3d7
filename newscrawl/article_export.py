"""The exported form of a stored article, shared by `-O FILE` crawls and `newscrawl export`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

# The stored article's columns, in export order; the article's cleaned HTML only on request
# (NEWSCRAWL_EXPORT_HTML, `newscrawl export --html`). The raw page is never exported.
ARTICLE_FIELDS: tuple[str, ...] = (
    "url",
    "canonical_url",
    "title",
    "published_at",
    "authors",
    "keywords",
    "language",
    "site",
    "category",
    "feed",
    "image_url",
    "image_caption",
    "description",
    "site_name",
    "tags",
    "modified_at",
    "page_headline",
    "fetched_at",
    "extracted_at",
    "extraction_method",
    "text",
)
HTML_FIELD = "html"
# Lists (authors, keywords, tags) in a CSV cell.
CSV_LIST_SEPARATOR = "; "


def list_export_fields(*, with_html: bool) -> list[str]:
    """The exported field names, in order."""
    return [*ARTICLE_FIELDS, HTML_FIELD] if with_html else list(ARTICLE_FIELDS)


def build_export_record(article: Any, *, with_html: bool = False) -> dict[str, Any]:
    """A JSON-ready dict of an article (stored row or ArticleRecord): dates in ISO 8601."""
    record: dict[str, Any] = {}
    for name in list_export_fields(with_html=with_html):
        value = getattr(article, name)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, Sequence) and not isinstance(value, str):
            value = list(value)
        record[name] = value
    return record


def format_markdown(record: dict[str, Any]) -> str:
    """One article as a Markdown section: headline, a metadata list, then the text."""
    lines = [f"# {record.get('title') or '(untitled)'}", ""]
    for label, name in (
        ("URL", "url"), ("Site", "site"), ("Category", "category"),
        ("Published", "published_at"), ("Authors", "authors"), ("Language", "language"),
    ):
        value = record.get(name)
        if isinstance(value, list):
            value = ", ".join(value)
        if value:
            lines.append(f"- {label}: {value}")
    text = str(record.get("text") or "").strip()
    title = str(record.get("title") or "")
    if title and text.startswith(title):
        # Extracted texts often open with the headline, already printed above.
        text = text[len(title):].lstrip()
    return "\n".join(lines).rstrip("\n") + "\n\n" + text + "\n"
