"""`PageMetadata` and `extract_metadata`, which gathers every field."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from lxml.html import HtmlElement

from newscrawl.extraction.article_tags import find_tags
from newscrawl.extraction.descriptions import find_description
from newscrawl.extraction.language import detect_language
from newscrawl.extraction.metadata.bylines import find_authors
from newscrawl.extraction.metadata.date_parsing import parse_date
from newscrawl.extraction.metadata.date_sources import find_published_date
from newscrawl.extraction.metadata.field_text import _first_text
from newscrawl.extraction.metadata.headline import find_headline
from newscrawl.extraction.metadata.jsonld import (
    _iter_jsonld_articles,
    _jsonld_name,
    find_article_body,
)
from newscrawl.extraction.metadata.page_index import index_tags, read_meta_tags, scan_elements
from newscrawl.extraction.metadata.urls import find_canonical_url, find_top_image
from newscrawl.extraction.modified_dates import find_modified_date


@dataclass(frozen=True)
class PageMetadata:
    """What the page says about its article, apart from the article text."""

    title: str | None = None
    published: datetime | None = None
    authors: list[str] = field(default_factory=list)
    language: str | None = None
    canonical_url: str | None = None
    image_url: str | None = None
    image_caption: str | None = None
    site_name: str | None = None
    # The longest JSON-LD `articleBody`, as the page gives it (markup and entities included).
    article_body: str | None = None
    description: str | None = None
    tags: list[str] = field(default_factory=list)
    modified: datetime | None = None


def extract_metadata(
    tree: HtmlElement, url: str | None, *, htmldate_fallback: bool = False, headline: bool = True
) -> PageMetadata:
    """Read the headline, date, authors, language, canonical URL and top image of a page.

    `htmldate_fallback` asks htmldate when no other source gives a date (see the package doc).
    `headline=False` skips the headline search (`title` stays None), for a caller that already
    has the article's title from its feed.
    """
    root = tree.getroottree().getroot()
    marked = scan_elements(root)
    tags = marked.tags if marked is not None else index_tags(root)
    metas = read_meta_tags(root, tags=tags)
    articles = list(_iter_jsonld_articles(root, tags=tags))
    site_name = _first_text(metas.get("og:site_name"), metas.get("application-name"))
    if site_name is None:
        site_name = _first_text(*(_jsonld_name(a.get("publisher")) for a in articles))
    canonical_url = find_canonical_url(root, metas, url, tags=tags)
    image_url, image_caption = find_top_image(
        root, metas, articles, canonical_url or url, tags=tags
    )
    return PageMetadata(
        title=find_headline(root, metas, articles, site_name, tags=tags) if headline else None,
        published=find_published_date(
            root,
            metas,
            articles,
            url or canonical_url,
            tags=tags,
            marked=marked.dates if marked is not None else None,
            candidates=marked.bylines if marked is not None else None,
            htmldate_fallback=htmldate_fallback,
        ),
        authors=find_authors(root, metas, articles, site_name, marked=marked),
        language=detect_language(root, meta_elements=tags["meta"]),
        canonical_url=canonical_url,
        image_url=image_url,
        image_caption=image_caption,
        site_name=site_name,
        article_body=find_article_body(articles),
        description=find_description(metas, articles),
        tags=find_tags(metas, articles, site_name),
        modified=find_modified_date(metas, articles, parse_date),
    )
