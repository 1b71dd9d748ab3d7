"""Article metadata: headline, publish date, authors, language, canonical URL and top image.

Sources are tried from the most to the least explicit: JSON-LD, then meta tags, then the
markup (`<time>`, bylines, date lines, figures), then the URL. htmldate's page-wide date
heuristics are an opt-in last resort (`htmldate_fallback`): they copy and serialise the whole
page, which costs more than the rest of the extraction, and on the dev pages what they found
beyond the sources above was often a site clock, another story's date or a misread day/month.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime
from itertools import chain, islice
from typing import Any
from urllib.parse import urljoin, urlsplit

from lxml import etree
from lxml.html import HtmlElement

from newscrawl.extraction.article_tags import find_tags
from newscrawl.extraction.authors import (
    byline_subject,
    clean_author_names,
    dedupe_names,
    is_account_url,
    is_agency,
    is_desk,
    is_source_credit,
    is_written_by_label,
    jsonld_authors,
)
from newscrawl.extraction.descriptions import find_description
from newscrawl.extraction.language import detect_language
from newscrawl.extraction.modified_dates import find_modified_date
from newscrawl.extraction.published_dates import choose_published_date, read_time_after
from newscrawl.extraction.titles import is_long_enough, strip_title_furniture

try:
    # The compiled scan (built by `pip install`, see setup.py): the same elements, one walk.
    from newscrawl.extraction._metadata_scan import meta_contents as _compiled_meta_contents
    from newscrawl.extraction._metadata_scan import scan_elements as _compiled_scan
except ImportError:  # not built, or built for another lxml: the searches below do the same job
    _compiled_scan = None  # type: ignore[assignment]
    _compiled_meta_contents = None  # type: ignore[assignment]
# Whether extract_metadata finds its elements with the compiled scan.
COMPILED_SCAN: bool = _compiled_scan is not None

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
_PUBLISHED_META = (
    "article:published_time",
    "article:published:time",
    "og:published_time",
    "datepublished",
    "article.published",
    "publishdate",
    "publish-date",
    "published_time",
    "pubdate",
    "dc.date.issued",
    "dcterms.created",
    "dc.date",
    "dcterms.date",
    "date",
    "sailthru.date",
    "parsely-pub-date",
    "article_date_original",
    "original-publish-date",
    "displaydate",
    "cxenseparse:recs:publishtime",
    # Names older and smaller sites use (from htmldate's list of publish-date names).
    "publish_date",
    "publication_date",
    "date_published",
    "originalpublicationdate",
    "article:published",
    "article:post_date",
    "og:pubdate",
    "og:publish_date",
    "citation_publication_date",
    "citation_date",
    "dc.date.created",
    "dcterms.issued",
)
_AUTHOR_META = (
    "author",
    "article:author",
    "og:article:author",
    "dc.creator",
    "dcterms.creator",
    "sailthru.author",
    "parsely-author",
    "byl",
    "citation_author",
    "twitter:creator",
)
_TITLE_SEPARATORS = re.compile(r"\s+[|\-\u2013\u2014\u00bb\u00b7]+\s+|\s*[|\u00bb]\s*")
_DOMAIN_PREFIX = re.compile(r"^\s*[\w-]+(?:\.[\w-]+)+\s*:\s+")
_HEADLINE_WORD = re.compile(r"\w+")
_MAX_H1 = 5
_URL_DATE = re.compile(
    r"[/_-]((?:19|20)\d{2})[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?:/|[_-]|\.html?|$)"
)
# Year first, with dashes or (in some CMS meta tags) slashes: "2005/10/13 10:36:40".
_ISO_DATE = re.compile(
    r"((?:19|20)\d{2})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?)?"
)
_WHITESPACE = re.compile(r"\s+")
_JSONLD_DATE = re.compile(r'"datePublished"\s*:\s*"([^"]{8,40})"')
_JSONLD_WRAPPER = re.compile(r"^\s*(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)\s*$")
_JSONLD_WRAPPER_OPENINGS = ("<!--", "<![CDATA[")
_JSONLD_WRAPPER_CLOSINGS = ("-->", "]]>")
_BYLINE_MARKERS = ("byline", "author", "writer", "contributor", "reporter")
_BYLINE_MARKER = re.compile("|".join(_BYLINE_MARKERS))
_BYLINE_TAGS = ("span", "div", "p", "a", "address", "li")
# Elements whose class or id names a date ("date", "timestamp", "published", "posted-on"): the
# visible date line of pages without structured dates. The tags are those htmldate reads first.
_DATE_MARKERS = ("date", "time", "publish", "posted", "meta", "byline", "footer")
_DATE_MARKER = re.compile("|".join(_DATE_MARKERS))
_DATE_TAGS = ("div", "h2", "h3", "h4", "li", "p", "span", "ul")
# Both kinds of marked element come from one walk (`scan_elements`).
_MARKED_TAGS = tuple(dict.fromkeys(_BYLINE_TAGS + _DATE_TAGS))
_MARKERS = tuple(dict.fromkeys(_BYLINE_MARKERS + _DATE_MARKERS))
# A date line leads with its date; longer text is a container that merely has such a class.
_DATE_LINE_CHARS = 60
_MONTH_NAMES = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d{2})"
# "March 4, 2009", "Dec. 4 2013" and "4 December 2013", "4th of July, 2009": English month names.
_TEXT_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+{_ORDINAL},?|{_ORDINAL}\s+(?:of\s+)?{_MONTH},?)\s+{_YEAR}\b",
    re.IGNORECASE,
)
_EARLIEST_YEAR = 1995
# Day and month in digits ("29.03.2017", "(2/18/2002)", "8/19/09"): read only when one of the
# two is above 12, so that the order is not a guess. Two-digit years are 1940-2039.
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,2})([./])(\d{1,2})\2((?:19|20)?\d{2})(?!\d)")
# A date line in the page's chrome is the site's clock or another story's date, not this one's.
# A header or footer (tag, class or id) is chrome unless it is the article's: named for it
# ("article-header", "post-footer"), or inside an `<article>`, `<main>` or a container named
# for the content ("#main", "#content"), but not one named as the header's ("header__content").
_CHROME_TAGS = frozenset({"nav", "aside"})
# Matched at the start of a class or id token: "sidebar-right", "nav_main" and "comments" name
# chrome, "right-sidebar" (a layout that has a sidebar) and "node-promoted" do not.
_CHROME_MARKER = re.compile(
    r"(?:^|\s)(?:masthead|nav|menu|sidebar|modal|popup|related|popular|recommend|promo|"
    r"widget|comment|teaser|trending)"
)
_EDGE_TAGS = frozenset({"header", "footer"})
_EDGE_MARKER = re.compile("header|footer")
_ARTICLE_MARKER = re.compile("article|post|story|entry")
_CONTENT_MARKER = re.compile("content|main")
# A list with this many date lines is a list of stories, each with its own date. Such lists
# show their dates from the first items on; the first few lists around an element are enough
# (hostile pages nest thousands).
_STORY_LIST_DATES = 2
_STORY_LIST_ITEMS = 20
_STORY_LIST_LEVELS = 3
# Date lines read before giving up: the article's own comes early, a page of dated links
# would otherwise be read in full.
_MAX_DATE_LINES = 50
# Compiled once (`root.xpath(text)` compiles on every call). Selecting the attribute nodes and
# then their elements is faster in libxml2 than testing attributes on every element.
_AUTHOR_ATTRIBUTES = etree.XPath("//@rel[.='author'] | //@itemprop[.='author']")
_MARKED_DATES = etree.XPath('//@itemprop[.="datePublished"]/.. | //time[@pubdate]')
# Its first half: a page without `<time pubdate>` (nearly all) needs one walk fewer.
_ITEMPROP_DATES = etree.XPath('//@itemprop[.="datePublished"]/..')
_BYLINE_NOISE_CLASS = re.compile(r"comment|avatar|bio|img|image|photo|social|share", re.I)
# The tags read below, gathered in one walk of the tree: each walk of a large page costs about
# as much as everything done with the few elements it finds.
_INDEXED_TAGS = ("meta", "script", "link", "title", "h1", "time", "figure", "abbr")
# hAtom and blog templates: `<abbr class="published" title="2009-02-12T21:40:00-06:00">`.
_ABBR_DATE_CLASS = re.compile(r"publish|date|time|dtstart", re.IGNORECASE)
TagIndex = dict[str, list[HtmlElement]]


@dataclass(frozen=True)
class MarkedElements:
    """The elements metadata looks for, from one walk of the page (`scan_elements`)."""

    tags: TagIndex
    # Elements with rel or itemprop "author", in document order, once each.
    authors: list[HtmlElement]
    # Elements with itemprop "datePublished" and `<time pubdate>`, in document order.
    dates: list[HtmlElement]
    # `_MARKED_TAGS` elements whose class or id may hold a byline or date marker: a superset of
    # those `_is_byline_marker` and `_is_date_marker` accept (they still decide), in document
    # order.
    bylines: list[HtmlElement]


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

    `htmldate_fallback` asks htmldate when no other source gives a date (see the module doc).
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


def scan_elements(root: HtmlElement) -> MarkedElements | None:
    """What metadata's element searches find, from one compiled walk; None without it.

    None also when the compiled scan declines the page (shapes the HTML parser never makes):
    the callers then search as before.
    """
    if _compiled_scan is None:
        return None
    found = _compiled_scan(root, _INDEXED_TAGS, _MARKED_TAGS, _MARKERS)
    return MarkedElements(*found) if found is not None else None


def index_tags(root: HtmlElement) -> TagIndex:
    """The elements of each tag metadata reads, in document order, from one walk."""
    tags: TagIndex = {tag: [] for tag in _INDEXED_TAGS}
    for element in root.iter(*_INDEXED_TAGS):
        found = tags.get(element.tag)
        if found is None:
            # A name spelled otherwise (a namespace) matched: gather tag by tag, as before.
            return {tag: list(root.iter(tag)) for tag in _INDEXED_TAGS}
        found.append(element)
    return tags


def read_meta_tags(root: HtmlElement, *, tags: TagIndex | None = None) -> dict[str, list[str]]:
    """Map each lower-cased meta name/property/itemprop to its non-empty contents, in order."""
    elements = list(root.iter("meta")) if tags is None else tags["meta"]
    if _compiled_meta_contents is not None:
        return _compiled_meta_contents(elements)
    return _read_meta_tags_python(elements)


def _read_meta_tags_python(elements: list[HtmlElement]) -> dict[str, list[str]]:
    """`read_meta_tags`' loop in Python: the reference for `_metadata_scan.meta_contents`."""
    metas: dict[str, list[str]] = {}
    for meta in elements:
        # Byte names: lxml need not encode them on every call.
        content = meta.get(b"content")
        if content is None or not content.strip():
            continue
        for attribute in (b"property", b"name", b"itemprop", b"http-equiv"):
            key = meta.get(attribute)
            if key:
                metas.setdefault(key.strip().lower(), []).append(content.strip())
    return metas


def _clean_text(text: str | None) -> str | None:
    if text is None:
        return None
    cleaned = _WHITESPACE.sub(" ", text).strip()
    return cleaned or None


def _first_text(*candidates: list[str] | str | None) -> str | None:
    for candidate in candidates:
        values = [candidate] if isinstance(candidate, str) or candidate is None else candidate
        for value in values:
            cleaned = _clean_text(value)
            if cleaned:
                return cleaned
    return None


# JSON-LD ---------------------------------------------------------------------------------


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


# Headline --------------------------------------------------------------------------------


def split_title(title: str) -> str:
    """Return the longest segment of a `<title>` like "BBC NEWS | Technology | Headline"."""
    segments = [segment.strip() for segment in _TITLE_SEPARATORS.split(title) if segment.strip()]
    return max(segments, key=len) if segments else title.strip()


_SITE_SEPARATORS = frozenset("|-\u2013\u2014\u00bb\u00b7:")


def _strip_site_name(title: str, site_name: str | None) -> str:
    """Drop the site's name from the start or end of a title ("Headline | Site")."""
    if not site_name:
        return title
    if site_name.isascii() and site_name == site_name.strip():
        stripped = _strip_ascii_site_name(title, site_name)
        if stripped is not None:
            return stripped.strip() or title
    return _strip_site_name_pattern(title, site_name)


def _strip_site_name_pattern(title: str, site_name: str) -> str:
    """`_strip_site_name` with a pattern built for the site (compiling it costs ~0.2 ms)."""
    name = re.escape(site_name)
    separator = r"\s*[|\-\u2013\u2014\u00bb\u00b7:]+\s*"
    pattern = rf"^\s*{name}{separator}|{separator}{name}\s*$"
    return re.sub(pattern, "", title, flags=re.IGNORECASE).strip() or title


def _strip_ascii_site_name(title: str, name: str) -> str | None:
    """What the pattern of `_strip_site_name_pattern` leaves, found without compiling it.

    The name is ASCII and unpadded, so it matches exactly len(name) characters; where those
    are not ASCII (IGNORECASE also folds "ſ" and the Kelvin sign), answer None: the caller
    uses the pattern.
    """
    size = len(name)
    lowered = name.lower()
    # "^\s*NAME SEPARATOR": the name right after the leading space, then a separator run.
    start = len(title) - len(title.lstrip())
    kept_from = 0
    head = title[start : start + size]
    if len(head) == size:
        if not head.isascii():
            return None
        if head.lower() == lowered:
            end = _skip_space(title, start + size)
            after = _skip_separators(title, end)
            if after > end:
                kept_from = _skip_space(title, after)
    # "SEPARATOR NAME \s*$", searched after what the first alternative consumed.
    name_end = len(title.rstrip())
    name_start = name_end - size
    if name_start < kept_from:
        return title[kept_from:]
    tail = title[name_start:name_end]
    if not tail.isascii():
        return None
    if tail.lower() != lowered:
        return title[kept_from:]
    before = name_start
    while before > kept_from and title[before - 1].isspace():
        before -= 1
    separator_end = before
    while before > kept_from and title[before - 1] in _SITE_SEPARATORS:
        before -= 1
    if before == separator_end:
        return title[kept_from:]  # no separator between the text and the name
    while before > kept_from and title[before - 1].isspace():
        before -= 1
    return title[kept_from:before]


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _skip_separators(text: str, index: int) -> int:
    while index < len(text) and text[index] in _SITE_SEPARATORS:
        index += 1
    return index


def _strip_domain_prefix(title: str) -> str:
    """Drop a "Forbes.com: " style prefix naming the site rather than the story."""
    match = _DOMAIN_PREFIX.match(title)
    return title[match.end() :] if match and match.end() < len(title) else title


def _headline_words(text: str) -> set[str]:
    return set(_HEADLINE_WORD.findall(text.lower()))


def find_headline(
    root: HtmlElement,
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    site_name: str | None = None,
    *,
    tags: TagIndex | None = None,
) -> str | None:
    """Return the headline: og:title, JSON-LD headline or an h1, else the `<title>`'s core.

    When the page has a `<title>`, the candidate sharing the most words with it wins (and must
    share at least half of its own): section names ("Entertainment") and logo text in an h1
    share few, while the real headline is nearly always echoed in `<title>`.
    """
    if tags is None:
        tags = index_tags(root)
    # `.//title`: the first one below the root.
    title_element = next((t for t in tags["title"] if t is not root), None)
    page_title = _clean_text(title_element.text_content()) if title_element is not None else None
    title_words = _headline_words(page_title) if page_title else set()
    raw_candidates: list[str] = [
        *metas.get("og:title", ()),
        *metas.get("twitter:title", ()),
        *(a["headline"] for a in articles if isinstance(a.get("headline"), str)),
        *(h1.text_content() for h1 in tags["h1"][:_MAX_H1]),
    ]
    candidates: list[str] = []
    # og:title, twitter:title and the JSON-LD headline are often one string: a repeat would
    # only become a repeated candidate, and a repeat never beats its first (ties keep the
    # earlier one), so each string is cleaned and scored once.
    for raw in dict.fromkeys(raw_candidates):
        text = _clean_text(html.unescape(raw))
        if not text or len(text) <= 3:
            continue
        text = _strip_domain_prefix(_strip_site_name(text, site_name))
        if site_name and text.lower() == site_name.lower():
            continue
        candidates.append(text)
    h1s = [text for h1 in tags["h1"][:_MAX_H1] if (text := _clean_text(h1.text_content()))]
    declared = _declared_headline(metas, articles, site_name, h1s, page_title, title_words)
    if declared is not None:
        return declared
    if not page_title:
        return strip_title_furniture(candidates[0]) if candidates else None
    candidates.append(_strip_domain_prefix(split_title(html.unescape(page_title))))
    best, best_shared = candidates[-1], 0
    for candidate in candidates:
        words = _headline_words(candidate)
        shared = len(words & title_words)
        # The fullest echo of <title> wins; ties go to the more explicit source (og:title).
        if words and shared >= 0.5 * len(words) and shared > best_shared:
            best, best_shared = candidate, shared
    return strip_title_furniture(best)


def _declared_headline(
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    site_name: str | None,
    h1s: list[str],
    page_title: str | None,
    title_words: set[str],
) -> str | None:
    """The headline the publisher declares (og:title, then JSON-LD, then twitter:title).

    The h1 on the page often carries a kicker, a live label or a section fused to it
    ("Kultur : ...", "Premier League Rückschlag ..."), and some h1s are another story's: the
    declared headline is the one the publisher chose. The first declared headline an h1 shows
    wins, as the h1 spells it; else og:title's. One counts only when it shares a word with
    `<title>` or an h1.
    """
    page_words = title_words.union(*(_headline_words(h1) for h1 in h1s))
    declared = [
        *metas.get("og:title", ())[:1],
        *(a["headline"] for a in articles[:1] if isinstance(a.get("headline"), str)),
        *metas.get("twitter:title", ())[:1],
    ]
    texts = [text for raw in declared if (text := _clean_text(html.unescape(raw)))]
    found = [headline for text in texts if (headline := _checked_headline(
        text, texts, site_name, page_title, page_words)) is not None]
    shown_keys = {_headline_key(strip_title_furniture(h1)): h1 for h1 in h1s}
    # A declared headline the page shows as its h1 is the headline both agree on; og:title
    # alone may be a social-media variant ("16-0! All six British players win...").
    for headline in found:
        h1 = shown_keys.get(_headline_key(headline))
        if h1 is not None:
            return strip_title_furniture(h1)
    return found[0] if found else None


def _checked_headline(
    text: str, texts: list[str], site_name: str | None, page_title: str | None,
    page_words: set[str],
) -> str | None:
    """One declared headline cleaned of site names and furniture, or None when it is none."""
    if len(text) <= 3:
        return None
    # An og:title copied from `<title>` keeps its furniture ("... | Bhopal News - The Times of
    # India"): a declared headline it contains is the headline without it.
    inner = [t for t in texts if t != text and is_long_enough(t) and t in text]
    if inner and _headline_key(text) == _headline_key(page_title or ""):
        text = inner[0]
    text = _strip_domain_prefix(_strip_site_name(text, site_name))
    if site_name and text.lower() == site_name.lower():
        return None
    headline = strip_title_furniture(text)
    if not is_long_enough(headline):
        return None  # a section, a site's name or a cut-off headline ("Flood")
    words = _headline_words(headline)
    # A generic og:title ("Home", a section) shares no word with the page's title or h1s; an
    # SEO rewrite of the headline in `<title>` still shares some.
    if not words or (page_words and not words & page_words):
        return None
    return headline


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         "\u00ad": None})


def _headline_key(text: str) -> str:
    """A headline compared without case, spacing, soft hyphens or curly quotes."""
    return " ".join(text.translate(_QUOTES).casefold().split())


# Publish date ----------------------------------------------------------------------------


def parse_date(value: str | None) -> datetime | None:
    """Parse an ISO 8601 / RFC 2822 / compact date string; without an offset it stays naive."""
    if not value:
        return None
    value = value.strip()
    parsed: datetime | None = None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None:
        match = _ISO_DATE.search(value)
        if match:
            parsed = _datetime_from_match(match)
    if parsed is None:
        try:
            parsed = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            parsed = None
    if parsed is None and re.fullmatch(r"(?:19|20)\d{6}", value):
        parsed = _safe_datetime(int(value[:4]), int(value[4:6]), int(value[6:]))
    if parsed is None or not 1990 <= parsed.year <= 2100:
        return None
    return parsed


def _safe_datetime(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime | None:
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None


def _datetime_from_match(match: re.Match[str]) -> datetime | None:
    year, month, day, hour, minute, second, zone = match.groups()
    parsed = _safe_datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
    )
    if parsed is None or not zone:
        return parsed
    if zone == "Z":
        return parsed.replace(tzinfo=UTC)
    try:
        return datetime.fromisoformat(parsed.isoformat() + zone[:3] + ":" + zone[-2:])
    except ValueError:
        return parsed


def find_published_date(
    root: HtmlElement,
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    url: str | None,
    *,
    tags: TagIndex | None = None,
    marked: list[HtmlElement] | None = None,
    candidates: list[HtmlElement] | None = None,
    htmldate_fallback: bool = False,
) -> datetime | None:
    """Return the publish date: the first source's, with the time a later one adds that day.

    Sources in `_iter_published_dates`' order (`choose_published_date` picks); then htmldate
    if `htmldate_fallback`.
    """
    found = choose_published_date(
        _iter_published_dates(
            root, metas, articles, url, tags=tags, marked=marked, candidates=candidates
        )
    )
    if found is None and htmldate_fallback:
        return _find_date_with_htmldate(root, url)
    return found


def _iter_published_dates(
    root: HtmlElement,
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    url: str | None,
    *,
    tags: TagIndex | None = None,
    marked: list[HtmlElement] | None = None,
    candidates: list[HtmlElement] | None = None,
) -> Iterator[datetime]:
    """Yield the publish dates the structured data, the markup and the URL give, in order.

    In order: JSON-LD, meta tags, `<time>`, `<abbr>` titles, the page's URL, then its og:image
    URL, then a date line (an element whose class or id names a date, or an `<abbr>`, whose
    text starts with one) outside the page's chrome.
    `marked` and `candidates`, when the caller has them, are `MarkedElements.dates` and
    `.bylines` (with `tags`).
    """
    for article in articles:
        for key in ("datePublished", "dateCreated", "uploadDate"):
            value = article.get(key)
            parsed = parse_date(value) if isinstance(value, str) else None
            if parsed:
                yield parsed
    # JSON-LD that does not parse (a stray comma, an unescaped quote) still names the date.
    for script in root.iter("script") if tags is None else tags["script"]:
        text = script.text
        if (
            text
            and not articles
            and '"datePublished"' in text
            and "json" in (script.get("type") or "").lower()
        ):
            match = _JSONLD_DATE.search(text)
            parsed = parse_date(match[1]) if match else None
            if parsed:
                yield parsed
    for key in _PUBLISHED_META:
        for value in metas.get(key, ()):
            # Some CMSs write the date in words: content="29 Mar 2017".
            parsed = parse_date(value) or parse_date_line(value)
            if parsed:
                yield parsed
    # Marked publish dates first: a bare <time> may be a comment's or the clock's.
    if tags is None:
        marked, times = _MARKED_DATES(root), list(root.iter("time"))
    else:
        times = tags["time"]
        if marked is None:
            pubdate = any(stamp.get("pubdate") is not None for stamp in times)
            marked = _MARKED_DATES(root) if pubdate else _ITEMPROP_DATES(root)
    for element in [*marked, *times]:
        value = element.get("datetime") or element.get("content")
        if value is None and element.tag == "time":
            value = element.text_content()
        parsed = parse_date(value)
        if parsed:
            yield parsed
    abbrs = list(root.iter("abbr")) if tags is None else tags["abbr"]
    for abbr in abbrs:
        if _ABBR_DATE_CLASS.search(abbr.get("class") or ""):
            parsed = parse_date(abbr.get("title"))
            if parsed:
                yield parsed
    for address in (url, *metas.get("og:image", ())):
        found = _url_date(address)
        if found:
            yield found
    if candidates is None:
        candidates = list(root.iter(*_DATE_TAGS))
    story_lists: dict[HtmlElement, bool] = {}
    lines_left = _MAX_DATE_LINES
    for element in chain((element for element in candidates if element.tag in _DATE_TAGS), abbrs):
        if element.tag == "abbr" or _is_date_marker(element):
            found = parse_date_line(_leading_text(element, _DATE_LINE_CHARS))
            if found is None:
                continue
            if not _in_page_chrome(element, story_lists):
                yield found
            lines_left -= 1
            if not lines_left:
                break


def _url_date(address: str | None) -> datetime | None:
    """The date in a URL's path ("/2018/02/09/story.html", "/story-20191115/"), if any."""
    if not address:
        return None
    match = _URL_DATE.search(urlsplit(address).path)
    if not match:
        return None
    return _safe_datetime(int(match[1]), int(match[2]), int(match[3]))


def _marker_text(element: HtmlElement) -> str | None:
    """The element's class and id, lower-cased, or None when it has neither (most elements)."""
    # Byte names skip lxml's encoding of the name on each of these many calls.
    class_name, element_id = element.get(b"class"), element.get(b"id")
    if class_name is None and element_id is None:
        return None
    return f"{class_name or ''} {element_id or ''}".lower()


def _is_date_marker(element: HtmlElement) -> bool:
    """Whether the element's class or id names a date."""
    marker = _marker_text(element)
    return marker is not None and bool(_DATE_MARKER.search(marker))


def _in_page_chrome(element: HtmlElement, story_lists: dict[HtmlElement, bool]) -> bool:
    """Whether the element or an ancestor is a header, menu, sidebar, footer or the like.

    `story_lists` remembers, per list element, whether it is a list of dated stories.
    """
    node: HtmlElement | None = element
    in_edge = False  # inside a header or footer not yet known to be an article's
    lists_left = _STORY_LIST_LEVELS
    # The body's and root's classes describe the whole page ("no-sidebars", "has-nav").
    while node is not None and node.tag not in ("body", "html"):
        tag = node.tag
        if tag in _CHROME_TAGS:
            return True
        if tag in ("article", "main"):
            in_edge = False
        elif tag in _EDGE_TAGS:
            in_edge = True
        marker = _marker_text(node)
        if marker is not None:
            if _CHROME_MARKER.search(marker):
                return True
            if _ARTICLE_MARKER.search(marker):
                in_edge = False
            elif _EDGE_MARKER.search(marker):
                in_edge = True
            elif _CONTENT_MARKER.search(marker):
                in_edge = False
        if tag in ("ul", "ol") and lists_left:
            lists_left -= 1
            is_story_list = story_lists.get(node)
            if is_story_list is None:
                is_story_list = story_lists[node] = _count_date_lines(node) >= _STORY_LIST_DATES
            if is_story_list:
                return True
        node = node.getparent()
    return in_edge


def _count_date_lines(container: HtmlElement) -> int:
    """How many of the list's items hold a date line (up to `_STORY_LIST_DATES`)."""
    count = 0
    for item in islice(container.iterchildren("li"), _STORY_LIST_ITEMS):
        if any(
            _is_date_marker(element) and parse_date_line(_leading_text(element, _DATE_LINE_CHARS))
            for element in item.iter(*_DATE_TAGS)
        ):
            count += 1
            if count >= _STORY_LIST_DATES:
                break
    return count


def _leading_text(element: HtmlElement, characters: int) -> str:
    """The element's first `characters` characters of text, whitespace collapsed."""
    parts: list[str] = []
    size = 0
    for text in element.itertext():
        parts.append(text)
        size += len(text)
        if size >= 2 * characters:  # room for the whitespace that collapsing removes
            break
    return " ".join("".join(parts).split())[:characters]


def parse_date_line(text: str) -> datetime | None:
    """The first date in a line of text, or None.

    Read year first in digits, with an English month name, or as day and month in digits
    when only one order is possible.
    """
    if not any(char.isdigit() for char in text):
        return None
    matches = [
        match
        for match in (_ISO_DATE.search(text), _TEXT_DATE.search(text), _NUMERIC_DATE.search(text))
        if match
    ]
    if not matches:
        return None
    first = min(matches, key=lambda match: match.start())
    if first.re is _ISO_DATE:
        found = _datetime_from_match(first)
    elif first.re is _TEXT_DATE:
        month = _MONTH_NAMES[(first[1] or first[4]).lower()]
        found = _safe_datetime(int(first[5]), month, int(first[2] or first[3]))
    else:
        one, two, year = int(first[1]), int(first[3]), int(first[4])
        if year < 100:
            year += 2000 if year < 40 else 1900
        if one > 12 >= two:
            found = _safe_datetime(year, two, one)
        elif two > 12 >= one:
            found = _safe_datetime(year, one, two)
        else:
            return None  # "03.04.2009": April 3rd or March 4th
    if found is None or found.year < _EARLIEST_YEAR:
        return None
    return found if first.re is _ISO_DATE else read_time_after(text[first.end() :], found)


def _find_date_with_htmldate(root: HtmlElement, url: str | None) -> datetime | None:
    """Ask htmldate's quick heuristics (not its extensive search, which is slower still)."""
    try:
        from htmldate import find_date
    except ImportError:  # pragma: no cover - htmldate is a declared dependency
        return None
    try:
        # htmldate copies a tree it is given before pruning it, so ours stays intact.
        found = find_date(
            root,
            url=url,
            extensive_search=False,
            original_date=True,
            outputformat="%Y-%m-%d",
            min_date="1995-01-01",
        )
    except Exception:  # noqa: BLE001 - a third-party heuristic must never break extraction
        return None
    if not found:
        return None
    try:
        day = date.fromisoformat(found)
    except ValueError:
        return None
    return datetime(day.year, day.month, day.day)


# Authors ---------------------------------------------------------------------------------


def _byline_elements(
    root: HtmlElement, marked: MarkedElements | None = None
) -> Iterator[HtmlElement]:
    """Yield elements marked as a byline, lazily: the caller stops at the first good one."""
    if marked is not None:
        yield from marked.authors
        candidates: Iterable[HtmlElement] = (
            element for element in marked.bylines if element.tag in _BYLINE_TAGS
        )
    else:
        seen: set[HtmlElement] = set()
        for attribute in _AUTHOR_ATTRIBUTES(root):
            element = attribute.getparent()
            if element not in seen:  # an element may say "author" in both attributes
                seen.add(element)
                yield element
        candidates = root.iter(*_BYLINE_TAGS)
    for element in candidates:
        if _is_byline_marker(element):
            yield element


def _is_byline_marker(element: HtmlElement) -> bool:
    """Whether the element's class or id names a byline (and not a comment, photo...)."""
    marker = _marker_text(element)
    if marker is None:
        return False
    return bool(_BYLINE_MARKER.search(marker)) and not _BYLINE_NOISE_CLASS.search(marker)


def find_authors(
    root: HtmlElement,
    metas: dict[str, list[str]],
    articles: list[dict[str, Any]],
    site_name: str | None = None,
    *,
    marked: MarkedElements | None = None,
) -> list[str]:
    """Return author names from JSON-LD, then meta tags, then a byline in the markup.

    People come first, wherever found: the visible byline wins over an organisation in the
    structured data. Without a person, an agency or the publication itself is the author when
    the structured data names it so (Fundus and news-please users expect "dpa", "Euronews").
    Organisations listed beside people in the JSON-LD `author` stay beside them ("SDA").
    """
    publisher = (site_name or "").strip().casefold()
    people: list[str] = []
    organisations: list[str] = []
    for article in articles:
        people, organisations = jsonld_authors(article.get("author"))
        if people or organisations:
            break
    meta_raws = [raw for key in _AUTHOR_META for raw in metas.get(key, [])]
    # Names in the structured data that are the publication (a "Person" named "Euronews").
    publication = [raw for raw in chain(people, meta_raws) if raw.strip().casefold() == publisher]
    known = frozenset(name.strip().casefold() for name in chain(organisations, publication))

    def person_names(raws: Iterable[str]) -> list[str]:
        names = (n for raw in raws for n in clean_author_names(raw, organisations=known))
        return [n for n in names if n.casefold() != publisher and n.casefold() not in known
                or is_agency(n)]

    names = person_names(people)
    fallback = [name for name in chain(publication, organisations)
                if name.strip().casefold() == publisher or is_agency(name.strip())]
    if names and all(is_desk(name) for name in names):
        # A template's "WIRED Staff" in the JSON-LD yields to a person the page names.
        found = _find_listed_authors(root, metas, marked, person_names, publisher, fallback)
        if found and not any(is_desk(name) for name in found):
            return found
    if names:
        names = _with_visible_coauthors(names, root, marked, person_names)
        return dedupe_names(names + [o.strip() for o in organisations])
    found = _find_listed_authors(root, metas, marked, person_names, publisher, fallback)
    return found or dedupe_names([name.strip() for name in fallback])


def _find_listed_authors(
    root: HtmlElement,
    metas: dict[str, list[str]],
    marked: MarkedElements | None,
    person_names: Callable[[Iterable[str]], list[str]],
    publisher: str,
    structured: list[str],
) -> list[str]:
    """Names from the author meta tags, then from the page's first byline that names anyone.

    `structured` holds the publication or agencies the structured data names as the author:
    a byline naming only one of them, or the site (`publisher`), ends the search.
    """
    publisher_names = {name.strip().casefold() for name in (publisher, *structured)} - {""}
    for raws in (*(metas.get(key, []) for key in _AUTHOR_META), _yoast_writers(metas)):
        names = person_names(raws)
        if names:
            return dedupe_names(names)
    for element in _byline_elements(root, marked):
        if _links_to_account(element):
            continue
        itemprop_name = element.find('.//*[@itemprop="name"]')
        source = itemprop_name if itemprop_name is not None else element
        text = source.get("content") or source.text_content()
        if len(text) > 200:  # a whole article block carrying an "author" class
            continue
        if structured and is_source_credit(text):
            continue  # "Quelle: dpa" credits material; the structured data names the author
        names = person_names([text])
        if names:
            return dedupe_names(names)
        if byline_subject(text) in publisher_names:
            # The page's own byline is the publication: later bylines are other stories'.
            break
    return []


def _yoast_writers(metas: dict[str, list[str]]) -> list[str]:
    """The writer Yoast SEO states as `twitter:labelN` "Written by" / `twitter:dataN`."""
    found: list[str] = []
    for number in range(1, 5):
        labels = metas.get(f"twitter:label{number}")
        if labels and is_written_by_label(labels[0]):
            found.extend(metas.get(f"twitter:data{number}", [])[:1])
    return found


def _links_to_account(element: HtmlElement) -> bool:
    """Whether a byline element is, or holds, a link to a CMS account ("/author/admin/")."""
    # The first few links only: a whole article may carry an "author" class.
    links = chain([element] if element.tag == "a" else [], element.iterdescendants("a"))
    return any(is_account_url(link.get("href")) for link in islice(links, 3))


# Byline containers around one author link: "Ingrid Treborg" and "Marlene Lundberg Holm" each
# linked, in one `div.bylines`, when the JSON-LD names only one of them.
_COAUTHOR_LEVELS = 5
_COAUTHOR_CHARS = 200


def _with_visible_coauthors(
    names: list[str],
    root: HtmlElement,
    marked: MarkedElements | None,
    person_names: Callable[[Iterable[str]], list[str]],
) -> list[str]:
    """The structured data's names, or the visible byline's when it names them and more.

    The visible byline is the author links (rel or itemprop "author") in the short container
    around the link that names the first of `names`.
    """
    links = marked.authors if marked is not None else _author_marked_elements(root)
    wanted = {name.casefold() for name in names}
    for link in links[:_MAX_AUTHOR_LINKS]:
        if {n.casefold() for n in person_names([link.text_content()])} & wanted:
            break
    else:
        return names
    # The outermost short byline container around the link ("div.bylines"), not the page.
    container, node = link, link
    for _ in range(_COAUTHOR_LEVELS):
        parent = node.getparent()
        if parent is None or parent.tag in ("body", "html", "article", "main"):
            break
        if len(parent.text_content()) > _COAUTHOR_CHARS:
            break
        node = parent
        if _is_byline_marker(node):
            container = node
    inside = [other for other in links if other is container or _is_within(other, container)]
    visible = person_names(other.text_content() for other in inside)
    shown = {name.casefold() for name in visible}
    return visible if wanted < shown else names


_MAX_AUTHOR_LINKS = 20


def _author_marked_elements(root: HtmlElement) -> list[HtmlElement]:
    """Elements with rel or itemprop "author", once each, in document order."""
    return list(dict.fromkeys(attribute.getparent() for attribute in _AUTHOR_ATTRIBUTES(root)))


def _is_within(element: HtmlElement, container: HtmlElement) -> bool:
    return any(ancestor is container for ancestor in element.iterancestors())


# Canonical URL and top image -------------------------------------------------------------


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
