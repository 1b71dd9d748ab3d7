"""Article metadata: headline, publish date, authors, language, canonical URL and top image.

Sources are tried from the most to the least explicit: JSON-LD, then meta tags, then the
markup (`<time>`, bylines, date lines, figures), then the URL. htmldate's page-wide date
heuristics are an opt-in last resort (`htmldate_fallback`): they copy and serialise the whole
page, which costs more than the rest of the extraction, and on the dev pages what they found
beyond the sources above was often a site clock, another story's date or a misread day/month.

The modules, each for one part of the job:
    page_metadata  `PageMetadata` and `extract_metadata`, which gathers every field
    page_index     one walk of the page (compiled or not) and its meta tags
    markers        the class, id, rel and itemprop marks of bylines and date lines
    field_text     whitespace cleaning of the fields
    jsonld         the JSON-LD objects that describe the article
    headline       the headline
    date_parsing   dates read from strings, date lines and URLs
    date_sources   the publish date, source by source
    bylines        the authors
    urls           the canonical URL and the top image
"""

from newscrawl.extraction.metadata.bylines import find_authors
from newscrawl.extraction.metadata.date_parsing import parse_date, parse_date_line
from newscrawl.extraction.metadata.date_sources import find_published_date
from newscrawl.extraction.metadata.headline import find_headline, split_title
from newscrawl.extraction.metadata.jsonld import find_article_body
from newscrawl.extraction.metadata.page_index import (
    COMPILED_SCAN,
    MarkedElements,
    TagIndex,
    index_tags,
    read_meta_tags,
    scan_elements,
)
from newscrawl.extraction.metadata.page_metadata import PageMetadata, extract_metadata
from newscrawl.extraction.metadata.urls import find_canonical_url, find_top_image

# isort: split
# Private helpers the tests import from here, as they did when metadata was one module.
from newscrawl.extraction.metadata.headline import _strip_site_name as _strip_site_name
from newscrawl.extraction.metadata.headline import (
    _strip_site_name_pattern as _strip_site_name_pattern,
)
from newscrawl.extraction.metadata.jsonld import _iter_jsonld_articles as _iter_jsonld_articles
from newscrawl.extraction.metadata.markers import _AUTHOR_ATTRIBUTES as _AUTHOR_ATTRIBUTES
from newscrawl.extraction.metadata.markers import _MARKED_DATES as _MARKED_DATES
from newscrawl.extraction.metadata.markers import _is_byline_marker as _is_byline_marker
from newscrawl.extraction.metadata.markers import _is_date_marker as _is_date_marker

__all__ = [
    "COMPILED_SCAN",
    "MarkedElements",
    "PageMetadata",
    "TagIndex",
    "extract_metadata",
    "find_article_body",
    "find_authors",
    "find_canonical_url",
    "find_headline",
    "find_published_date",
    "find_top_image",
    "index_tags",
    "parse_date",
    "parse_date_line",
    "read_meta_tags",
    "scan_elements",
    "split_title",
]
