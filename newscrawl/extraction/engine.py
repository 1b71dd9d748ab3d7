"""`extract`: run every enabled stage on one page and build the article."""

from __future__ import annotations

from newscrawl.extraction.article import Article
from newscrawl.extraction.builder import build_article
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import parse_document
from newscrawl.extraction.stages import run_stages
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
    A stage that raises is not skipped here, so a library caller sees the error.
    """
    config = config or _DEFAULT_CONFIG
    if title:
        title = plain_title(title) or None
    document = parse_document(html, url=url, encoding=encoding)
    run_stages(document, template=template, title=title, config=config, raise_errors=True)
    return build_article(document, title=title, config=config)
