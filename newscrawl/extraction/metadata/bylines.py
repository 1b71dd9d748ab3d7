"""The authors: JSON-LD, author meta tags, then the page's bylines."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from typing import Any

from lxml import etree
from lxml.html import HtmlElement

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
from newscrawl.extraction.metadata.markers import (
    _AUTHOR_ATTRIBUTES,
    _is_byline_marker,
)
from newscrawl.extraction.metadata.page_index import MarkedElements
from newscrawl.extraction.tag_sets import ARTICLE_TAGS, BYLINE_TAGS, PAGE_TAGS

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


# `find('.//*[@itemprop="name"]')` in libxml2: ElementPath makes an lxml proxy for every
# element below (a byline class may sit on a whole article block), XPath only for the match.
_ITEMPROP_NAME = etree.XPath('(descendant::*[@itemprop="name"])[1]')


def _byline_elements(
    root: HtmlElement, marked: MarkedElements | None = None
) -> Iterator[HtmlElement]:
    """Yield elements marked as a byline, lazily: the caller stops at the first good one."""
    if marked is not None:
        yield from marked.authors
        candidates: Iterable[HtmlElement] = (
            element for element in marked.bylines if element.tag in BYLINE_TAGS
        )
    else:
        seen: set[HtmlElement] = set()
        for attribute in _AUTHOR_ATTRIBUTES(root):
            element = attribute.getparent()
            if element not in seen:  # an element may say "author" in both attributes
                seen.add(element)
                yield element
        candidates = root.iter(*BYLINE_TAGS)
    for element in candidates:
        if _is_byline_marker(element):
            yield element


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
        itemprop_names = _ITEMPROP_NAME(element)
        source = itemprop_names[0] if itemprop_names else element
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
        if parent is None or parent.tag in PAGE_TAGS or parent.tag in ARTICLE_TAGS:
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
