"""The publish date: where the page states it, from JSON-LD to date lines."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime
from itertools import chain, islice
from typing import Any

from lxml import etree
from lxml.html import HtmlElement

from newscrawl.extraction.metadata.date_parsing import _url_date, parse_date, parse_date_line
from newscrawl.extraction.metadata.markers import (
    _ITEMPROP_DATES,
    _MARKED_DATES,
    _is_date_marker,
    _marker_text,
)
from newscrawl.extraction.metadata.page_index import TagIndex
from newscrawl.extraction.published_dates import choose_published_date
from newscrawl.extraction.tag_sets import (
    ARTICLE_TAGS,
    CHROME_TAGS,
    DATE_LINE_TAGS,
    EDGE_TAGS,
    ITEM_LIST_TAGS,
    PAGE_TAGS,
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
_JSONLD_DATE = re.compile(r'"datePublished"\s*:\s*"([^"]{8,40})"')
# A date line leads with its date; longer text is a container that merely has such a class.
_DATE_LINE_CHARS = 60
# A date line in the page's chrome is the site's clock or another story's date, not this one's.
# A header or footer (tag, class or id) is chrome unless it is the article's: named for it
# ("article-header", "post-footer"), or inside an `<article>`, `<main>` or a container named
# for the content ("#main", "#content"), but not one named as the header's ("header__content").
# Matched at the start of a class or id token: "sidebar-right", "nav_main" and "comments" name
# chrome, "right-sidebar" (a layout that has a sidebar) and "node-promoted" do not.
_CHROME_MARKER = re.compile(
    r"(?:^|\s)(?:masthead|nav|menu|sidebar|modal|popup|related|popular|recommend|promo|"
    r"widget|comment|teaser|trending)"
)
_EDGE_MARKER = re.compile("header|footer")
_ARTICLE_MARKER = re.compile("article|post|story|entry")
_CONTENT_MARKER = re.compile("content|main")
# `_chrome_role`s.
_NO_ROLE, _CHROME, _EDGE, _NOT_EDGE = range(4)
# A date line's first 2 * `_DATE_LINE_CHARS` characters, and one more that tells whether that
# is all its text (XPath counts characters as Python does).
_LEADING_CHARACTERS = etree.XPath(
    f"substring(., 1, {2 * _DATE_LINE_CHARS + 1})", smart_strings=False
)
# A list with this many date lines is a list of stories, each with its own date. Such lists
# show their dates from the first items on; the first few lists around an element are enough
# (hostile pages nest thousands).
_STORY_LIST_DATES = 2
_STORY_LIST_ITEMS = 20
_STORY_LIST_LEVELS = 3
# Date lines read before giving up: the article's own comes early, a page of dated links
# would otherwise be read in full.
_MAX_DATE_LINES = 50
# hAtom and blog templates: `<abbr class="published" title="2009-02-12T21:40:00-06:00">`.
_ABBR_DATE_CLASS = re.compile(r"publish|date|time|dtstart", re.IGNORECASE)


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
        candidates = list(root.iter(*DATE_LINE_TAGS))
    story_lists: dict[HtmlElement, bool] = {}
    roles: dict[HtmlElement, int] = {}
    lines_left = _MAX_DATE_LINES
    dated = (element for element in candidates if element.tag in DATE_LINE_TAGS)
    for element in chain(dated, abbrs):
        if element.tag == "abbr" or _is_date_marker(element):
            found = parse_date_line(_leading_text(element, _DATE_LINE_CHARS))
            if found is None:
                continue
            if not _in_page_chrome(element, story_lists, roles):
                yield found
            lines_left -= 1
            if not lines_left:
                break


def _in_page_chrome(
    element: HtmlElement,
    story_lists: dict[HtmlElement, bool],
    roles: dict[HtmlElement, int],
) -> bool:
    """Whether the element or an ancestor is a header, menu, sidebar, footer or the like.

    `story_lists` remembers, per list element, whether it is a list of dated stories;
    `roles`, per element, its `_chrome_role` (a page's date lines share most ancestors).
    """
    node: HtmlElement | None = element
    in_edge = False  # inside a header or footer not yet known to be an article's
    lists_left = _STORY_LIST_LEVELS
    # The body's and root's classes describe the whole page ("no-sidebars", "has-nav").
    while node is not None and node.tag not in PAGE_TAGS:
        role = roles.get(node)
        if role is None:
            role = roles[node] = _chrome_role(node)
        if role == _CHROME:
            return True
        if role != _NO_ROLE:
            in_edge = role == _EDGE
        if node.tag in ITEM_LIST_TAGS and lists_left:
            lists_left -= 1
            is_story_list = story_lists.get(node)
            if is_story_list is None:
                is_story_list = story_lists[node] = _count_date_lines(node) >= _STORY_LIST_DATES
            if is_story_list:
                return True
        node = node.getparent()
    return in_edge


def _chrome_role(node: HtmlElement) -> int:
    """What the node itself says of the date lines inside it, by its tag, class and id.

    `_CHROME`: they are chrome; `_EDGE`: they are in a header or footer (chrome unless an
    ancestor is the article's); `_NOT_EDGE`: a header or footer inside it is the article's;
    `_NO_ROLE`: nothing.
    """
    tag = node.tag
    if tag in CHROME_TAGS:
        return _CHROME
    role = _NOT_EDGE if tag in ARTICLE_TAGS else _EDGE if tag in EDGE_TAGS else _NO_ROLE
    marker = _marker_text(node)
    if marker is not None:
        if _CHROME_MARKER.search(marker):
            return _CHROME
        if _ARTICLE_MARKER.search(marker):
            return _NOT_EDGE
        if _EDGE_MARKER.search(marker):
            return _EDGE
        if _CONTENT_MARKER.search(marker):
            return _NOT_EDGE
    return role


def _count_date_lines(container: HtmlElement) -> int:
    """How many of the list's items hold a date line (up to `_STORY_LIST_DATES`)."""
    count = 0
    for item in islice(container.iterchildren("li"), _STORY_LIST_ITEMS):
        if any(
            _is_date_marker(element) and parse_date_line(_leading_text(element, _DATE_LINE_CHARS))
            for element in item.iter(*DATE_LINE_TAGS)
        ):
            count += 1
            if count >= _STORY_LIST_DATES:
                break
    return count


def _leading_text(element: HtmlElement, characters: int) -> str:
    """The element's first `characters` characters of text, whitespace collapsed."""
    if characters == _DATE_LINE_CHARS:
        # libxml2 gathers the text without an lxml proxy for every element below (which
        # `itertext` makes, each through lxml.html's class lookup in Python). Collapsing a
        # prefix of the text gives a prefix of the collapsed whole, so where the first
        # 2 * `characters` collapse to at least `characters`, or are all there is, the answer
        # is that of the loop below.
        text: str = _LEADING_CHARACTERS(element)
        leading = " ".join(text[: 2 * characters].split())
        if len(text) <= 2 * characters or len(leading) >= characters:
            return leading[:characters]
    return _read_leading_text(element, characters)


def _read_leading_text(element: HtmlElement, characters: int) -> str:
    """`_leading_text` by `itertext`: the first texts of the element until there are enough."""
    parts: list[str] = []
    size = 0
    for text in element.itertext():
        parts.append(text)
        size += len(text)
        if size >= 2 * characters:  # room for the whitespace that collapsing removes
            break
    return " ".join("".join(parts).split())[:characters]


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
