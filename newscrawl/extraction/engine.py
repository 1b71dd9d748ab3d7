"""`extract`: run every enabled stage on one page and build the article."""

from __future__ import annotations

from newscrawl.extraction.article import Article
from newscrawl.extraction.builder import build_article
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.relevance import select_relevant_paragraphs
from newscrawl.extraction.static_noise import remove_static_noise
from newscrawl.extraction.template import SiteTemplate
from newscrawl.extraction.titles import plain_title

# Frozen, so one instance serves every call that brings no config of its own.
_DEFAULT_CONFIG = ExtractionConfig()


def extract(
    html: str | bytes,
    *,
    url: str | None = None,
    title: str | None = None,
    template: SiteTemplate | None = None,
    config: ExtractionConfig | None = None,
    encoding: str | None = None,
) -> Article:
    """Extract the article of one page, using the site template when one is given.

    Bytes are decoded as a browser would; `encoding` is the HTTP Content-Type charset, if any.
    """
    config = config or _DEFAULT_CONFIG
    if title:
        title = plain_title(title) or None
    document = parse_document(html, url=url, encoding=encoding)
    if template is not None and config.use_static_noise:
        remove_static_noise(document, template, config)
    if config.use_dynamic_noise:
        remove_dynamic_noise(document, config)
    if config.use_title_relevance:
        select_relevant_paragraphs(document, title, config)
    return build_article(document, title=title, config=config)
