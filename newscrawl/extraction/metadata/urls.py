"""The canonical URL and the top image with its caption."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

from lxml.html import HtmlElement

from newscrawl.extraction.metadata.field_text import _clean_text, _first_text
from newscrawl.extraction.metadata.jsonld import _jsonld_url
from newscrawl.extraction.metadata.page_index import TagIndex


def _absolute_http_url(value: str | None, base: str | None) -> str | None:
    if not value or not value.strip():
        return None
    try:
        absolute = urljoin(base, value.strip()) if base else value.strip()
        scheme = urlsplit(absolute).scheme.lower()
    except ValueError:
        return None
    if scheme in {"http", "https"}:
        return absolute
    return absolute if not scheme and base is None and not absolute.startswith("//") else None


def find_canonical_url(
    root: HtmlElement,
    metas: dict[str, list[str]],
    url: str | None,
    *,
    tags: TagIndex | None = None,
) -> str | None:
    """Return `<link rel=canonical>`, else og:url, made absolute against the page URL."""
    for link in root.iter("link") if tags is None else tags["link"]:
        rel = (link.get("rel") or "").lower().split()
        if "canonical" in rel:
            found = _absolute_http_url(link.get("href"), url)
            if found:
                return found
    for value in metas.get("og:url", ()):
        found = _absolute_http_url(value, url)
        if found:
            return found
    return None


def _image_key(url: str) -> str:
    """Compare images by file name: og:image is often a resized copy of the inline image."""
    path = urlsplit(url).path.rstrip("/")
    return path.rsplit("/", 1)[-1].lower()


def _figure_caption(figure: HtmlElement) -> str | None:
    caption = figure.find(".//figcaption")
    if caption is not None:
        return _clean_text(caption.text_content())
    return None


def find_top_image(
    root: HtmlElement,
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    base_url: str | None,
    *,
    tags: TagIndex | None = None,
) -> tuple[str | None, str | None]:
    """Return (url, caption) of the lead image: og:image / JSON-LD, else the first figure."""
    figures = list(root.iter("figure")) if tags is None else tags["figure"]
    image_url: str | None = None
    caption: str | None = None
    for value in (*metas.get("og:image", ()), *metas.get("twitter:image", ())):
        image_url = _absolute_http_url(value, base_url)
        if image_url:
            break
    if image_url is None:
        for article in articles:
            raw, jsonld_caption = _jsonld_url(article.get("image"))
            image_url = _absolute_http_url(raw, base_url)
            if image_url:
                caption = jsonld_caption
                break
    if image_url is not None:
        key = _image_key(image_url)
        for figure in figures:
            for img in figure.iter("img"):
                src = img.get("src") or img.get("data-src") or ""
                if key and _image_key(src) == key:
                    return image_url, _figure_caption(figure) or caption or _clean_text(
                        img.get("alt")
                    )
        return image_url, caption or _first_text(metas.get("og:image:alt"))
    for figure in figures:
        for img in figure.iter("img"):
            src = _absolute_http_url(img.get("src") or img.get("data-src"), base_url)
            if src:
                return src, _figure_caption(figure) or _clean_text(img.get("alt"))
    return None, None
