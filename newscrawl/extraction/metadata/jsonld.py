"""The page's JSON-LD: the objects that describe its article, and their values."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lxml.html import HtmlElement

from newscrawl.extraction.metadata.field_text import _clean_text
from newscrawl.extraction.metadata.page_index import TagIndex

_ARTICLE_TYPES = frozenset(
    {
        "article",
        "newsarticle",
        "reportagenewsarticle",
        "blogposting",
        "analysisnewsarticle",
        "opinionnewsarticle",
        "reviewnewsarticle",
        "backgroundnewsarticle",
        "liveblogposting",
        "webpage",
        "report",
        "scholarlyarticle",
        "techarticle",
        "socialmediaposting",
    }
)
_JSONLD_WRAPPER = re.compile(r"^\s*(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)\s*$")
_JSONLD_WRAPPER_OPENINGS = ("<!--", "<![CDATA[")
_JSONLD_WRAPPER_CLOSINGS = ("-->", "]]>")


def find_article_body(articles: list[dict[str, Any]]) -> str | None:
    """The longest `articleBody` of the JSON-LD articles; a list of paragraphs is joined."""
    best = None
    for article in articles:
        value = article.get("articleBody")
        if isinstance(value, list):
            value = "\n".join(part for part in value if isinstance(part, str))
        if isinstance(value, str) and value.strip() and (best is None or len(value) > len(best)):
            best = value
    return best


def _load_jsonld(text: str) -> Any:
    text = text.strip()
    # Publishers wrap the JSON in comments or CDATA to hide it from old browsers. On stripped
    # text the pattern can only match at either end; scanning every position costs more than
    # the JSON parse, so it runs only when an end shows a wrapper.
    if text.startswith(_JSONLD_WRAPPER_OPENINGS) or text.endswith(_JSONLD_WRAPPER_CLOSINGS):
        text = _JSONLD_WRAPPER.sub("", text).strip()
    if not text:
        return None
    # RecursionError: a hostile page can nest arrays deeper than the JSON decoder's stack.
    try:
        return json.loads(text, strict=False)
    except RecursionError:
        return None
    except ValueError:
        try:  # a stray trailing comma is the most common breakage
            return json.loads(re.sub(r",\s*([}\]])", r"\1", text), strict=False)
        except (ValueError, RecursionError):
            return None


def _iter_jsonld_objects(data: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    if depth > 6:
        return
    if isinstance(data, list):
        for item in data:
            yield from _iter_jsonld_objects(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        for key in ("@graph", "mainEntity", "itemListElement"):
            if key in data:
                yield from _iter_jsonld_objects(data[key], depth + 1)


def _jsonld_types(obj: dict[str, Any]) -> set[str]:
    types = obj.get("@type")
    values = types if isinstance(types, list) else [types]
    return {value.lower() for value in values if isinstance(value, str)}


def _iter_jsonld_articles(
    root: HtmlElement, *, tags: TagIndex | None = None
) -> Iterator[dict[str, Any]]:
    """Yield JSON-LD objects describing the article, most specific types first."""
    found: list[tuple[int, dict[str, Any]]] = []
    for script in root.iter("script") if tags is None else tags["script"]:
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        for obj in _iter_jsonld_objects(_load_jsonld(script.text or "")):
            types = _jsonld_types(obj)
            if types & _ARTICLE_TYPES:
                # A WebPage wrapper is less specific than the article it describes.
                found.append((1 if types <= {"webpage"} else 0, obj))
    for _, obj in sorted(found, key=lambda pair: pair[0]):
        yield obj


def _jsonld_name(value: Any) -> str | None:
    if isinstance(value, str):
        return _clean_text(value)
    if isinstance(value, dict):
        name = value.get("name")
        return _clean_text(name) if isinstance(name, str) else None
    if isinstance(value, list) and value:
        return _jsonld_name(value[0])
    return None


def _jsonld_url(value: Any) -> tuple[str | None, str | None]:
    """Return (url, caption) of a JSON-LD image value."""
    if isinstance(value, str):
        return value.strip() or None, None
    if isinstance(value, list) and value:
        return _jsonld_url(value[0])
    if isinstance(value, dict):
        url = value.get("url") or value.get("contentUrl") or value.get("@id")
        caption = value.get("caption") or value.get("description")
        return (
            url.strip() if isinstance(url, str) and url.strip() else None,
            _clean_text(caption) if isinstance(caption, str) else None,
        )
    return None, None
