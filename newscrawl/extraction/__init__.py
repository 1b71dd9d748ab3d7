"""Pure article extraction: static and dynamic noise removal, title relevance, block scoring.

Nothing here imports Scrapy, Twisted, SQLAlchemy or touches the network.
"""

from newscrawl.extraction.article import Article
from newscrawl.extraction.builder import build_article
from newscrawl.extraction.config import ExtractionConfig
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.dynamic_noise import remove_dynamic_noise
from newscrawl.extraction.engine import extract
from newscrawl.extraction.errors import ExtractionError, TemplateFormatError
from newscrawl.extraction.relevance import select_relevant_paragraphs
from newscrawl.extraction.static_noise import learn_static_noise, remove_static_noise
from newscrawl.extraction.template import SiteTemplate

__all__ = [
    "Article",
    "Document",
    "ExtractionConfig",
    "ExtractionError",
    "SiteTemplate",
    "TemplateFormatError",
    "build_article",
    "extract",
    "learn_static_noise",
    "parse_document",
    "remove_dynamic_noise",
    "remove_static_noise",
    "select_relevant_paragraphs",
]
