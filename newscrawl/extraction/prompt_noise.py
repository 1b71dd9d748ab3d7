"""Page furniture the block scorer may keep: dialogs, prompts, comments, related links, profiles.

Consent and cookie dialogs, subscribe / sign-in / newsletter / paywall prompts, user comments,
related links and tag lists, author profile boxes, image captions and copyright lines are long
enough, and often prose enough, to pass for article text. They are recognised by structure,
which works in every language: the dialog role, the `<figcaption>` tag, and class or id names
(`cookie-banner`, `paywall`, `commentlist`, `relatedArticles`, `author-bio`). Copyright lines
are recognised by the `©` sign or a phrase of the catalogue below. A second article appended
below the target (infinite scroll) is a second `<article>` with its own `<h1>`. Teasers of other
stories are recognised by their shape: at least three short siblings of one tag and class, each
a linked headline with a blurb or a picture.

A recognised container is dropped only while article text is left outside every one of them:
a page whose whole article sits in a container so named (a blog post's `tag-news` class) keeps
it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml.html import HtmlElement

from newscrawl.extraction.document import Document
from newscrawl.extraction.tag_sets import HEADING_TAGS
from newscrawl.extraction.word_tokens import split_words

# Name parts (class and id names split at '-', '_' and case changes) that name a noise
# container, by class. Two parts also count joined ("sign-in" is "signin").
NOISE_WORDS: dict[str, frozenset[str]] = {
    "consent": frozenset(
        {"consent", "cookie", "cookies", "gdpr", "cmp", "onetrust", "didomi", "cookiebot",
         "usercentrics", "cookielaw", "truste", "privacybanner", "spmessage"}
    ),
    "prompt": frozenset(
        {"paywall", "regwall", "subscribe", "subscription", "subscriptions", "newsletter",
         "newsletters", "signup", "signin", "login", "register", "registration", "piano",
         "meter", "upsell", "membership"}
    ),
    "comments": frozenset(
        {"comment", "comments", "commentlist", "disqus", "trackback",
         "trackbacks", "pingback", "pingbacks", "respond", "replies", "usercomments"}
    ),
    "related": frozenset(
        {"related", "relatedarticles", "relatedposts", "recommended", "recommendations",
         "outbrain", "taboola", "readmore", "morestories", "moreonthis"}
    ),
    "tags": frozenset({"tags", "taglist", "tagcloud", "keywords", "topics", "tagging"}),
    "profile": frozenset(
        {"authorbio", "authorbox", "authorinfo", "authorcard", "authorprofile", "aboutauthor",
         "bio", "biography", "bylinebox"}
    ),
    "copyright": frozenset({"copyright", "copyrights"}),
}  # fmt: skip
# Parts that may follow a noise word in a name and still make it the container's role
# ("comment-list", "cookie-banner"). Any other part after it makes the name a label of
# something else: WordPress marks a post `tag-politics`, a body `comments-open`.
CONTAINER_PARTS = frozenset(
    {"list", "box", "section", "container", "wrapper", "wrap", "area", "block", "module",
     "widget", "links", "holder", "panel", "bar", "banner", "overlay", "modal", "popup",
     "dialog", "form", "items", "item", "inner", "outer", "body", "content", "contents",
     "region", "zone", "frame", "feed", "thread", "threads", "articles", "stories", "posts",
     "news", "layer", "notice", "teaser", "teasers", "card", "cards", "prompt", "cta", "v2",
     "root", "main", "slot", "unit", "element", "component", "group", "text", "entry"}
)  # fmt: skip
# The copyright lines of the languages the pages are written in; the `©` sign works in all.
COPYRIGHT_PHRASES = (
    "all rights reserved", "alle rechte vorbehalten", "tous droits réservés",
    "todos los derechos reservados", "tutti i diritti riservati", "todos os direitos reservados",
    "alle rettigheter reservert", "alle rechten voorbehouden", "wszelkie prawa zastrzeżone",
    "все права защищены", "جميع الحقوق محفوظة", "版权所有", "版權所有", "無断転載",
    "著作権", "무단 전재", "tüm hakları saklıdır", "alla rättigheter förbehållna",
    "alle rettigheder forbeholdes",
)  # fmt: skip
# ("copyright" alone is not one: articles about copyright say it.)
_COPYRIGHT = re.compile("|".join(re.escape(p) for p in COPYRIGHT_PHRASES) + "|©|\\(c\\) ?\\d{4}")
# A copyright line is short: a longer block that names one is an article about copyright.
_COPYRIGHT_MAX_CHARS = 200
# Classes that may hold more text than the article: the others are small, and containers of
# such a class holding more than the rest of the article are the article ("post-paywall", or
# every paragraph marked "paywall": the gated text).
OUTWEIGHING = frozenset({"dialog", "consent", "comments"})
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
# A teaser of another story: one of at least this many siblings of the same tag and class...
TEASER_SIBLINGS = 3
# ... holding at most this many characters (a headline and a blurb) ...
TEASER_MAX_CHARS = 300
# ... of which at least this share is link text (the headline links to the story).
TEASER_LINK_SHARE = 0.4
# Teasers are wrappers of a headline and a blurb: never a paragraph, heading or table cell.
_TEASER_TAGS = frozenset({"li", "div", "article", "section", "aside", "dd", "span"})
# Article text of at least this many characters must stay outside every recognised container.
MIN_CLEAN_CHARS = 250
# Except beside readers' comments, which are never the article: a headline and a line will do
# (a short post above a long thread). A page whose post sits in a container named for comments
# keeps it through the headline rule, or because nothing else is kept.
MIN_CLEAN_CHARS_BESIDE_COMMENTS = 80
# A kept line that is all one link, at least this share of its characters, and at least this many
# words, is the headline of another story linked from the body (a bold, linked "2 RESIDENTS RAN
# SECRET POLICE STATION" between two paragraphs): the scorer reads it as prose.
LINKED_LINE_SHARE = 0.9
LINKED_LINE_WORDS = 4
# A second `<article>` with its own `<h1>` is another story when it holds this much kept text.
_SECOND_ARTICLE_CHARS = 500
# Vendors' names mark their widgets whatever follows them ("onetrust-consent-sdk"). Not a
# paywall's: what follows may be the gated article ("piano-inline-content-wrapper").
VENDOR_WORDS = frozenset(
    {"onetrust", "didomi", "cookiebot", "usercentrics", "truste", "spmessage", "outbrain",
     "taboola", "disqus"}
)  # fmt: skip
# Readers' comments name their parts freely ("commentbody", "comment-stream", "dsq-comment",
# "li.comment even depth-1"): any name that says "comment" marks one, but not "commentary" or
# "commentator" (opinion pieces mark their body so). A name that only states the page's state
# ("comments-open" on a WordPress body) holds the headline and is skipped as a wrapper.
_COMMENT_MARKER = re.compile(r"comment(?!ar|at)|disqus|\bdsq\b|dsq-")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PARTS = re.compile(r"[^a-z0-9]+")
_DIGITS = re.compile(r"[0-9]+")
_WORD_TO_CLASS: dict[str, str] = {
    word: name for name, words in NOISE_WORDS.items() for word in words
}


def _prefix_tree_pattern(words: Iterable[str]) -> str:
    """A regex matching exactly `words`, sharing their prefixes ("comment(?:s|list)?").

    The regex engine tries an alternation's branches one by one at every position; with the
    prefixes shared, a position is ruled out after one character test instead of one per word.
    """
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}  # a word ends here
    return _branch_pattern(tree)


def _branch_pattern(node: dict[str, dict]) -> str:
    """The pattern of the word endings below one node of `_prefix_tree_pattern`'s tree."""
    branches = [re.escape(char) + _branch_pattern(child) for char, child in node.items() if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


# Every noise word as a substring of a name without separators: a name with none is no mark.
# Only whether it matches is asked, so the words' order in the pattern does not matter.
_ANY_WORD = re.compile(_prefix_tree_pattern(_WORD_TO_CLASS))
# The same on ASCII bytes: most names are ASCII, and bytes.translate strips them fastest.
_ANY_WORD_BYTES = re.compile(_ANY_WORD.pattern.encode("ascii"))
_NOT_LOWER_ASCII = bytes(b for b in range(256) if not ord("a") <= b <= ord("z"))
_SEPARATORS = re.compile(r"[^a-z]+")


def _holds_noise_word(lowered: str) -> bool:
    """Whether a lower-cased name, stripped of all but a-z, contains a noise word."""
    if lowered.isascii():
        letters = lowered.encode("ascii").translate(None, _NOT_LOWER_ASCII)
        return _ANY_WORD_BYTES.search(letters) is not None
    return _ANY_WORD.search(_SEPARATORS.sub("", lowered)) is not None


def name_noise_class(name: str) -> str | None:
    """The noise class a class or id name gives its element, or None."""
    lowered = name.lower()
    if not _holds_noise_word(lowered):
        return None  # most names: one search in C instead of splitting them
    # Numbers are versions and ids: "cmp2", "sp_message_container_1234".
    parts = [p for p in _DIGITS.sub("", _PARTS.sub("-", _CAMEL.sub("-", name).lower())).split("-")]
    parts = [part for part in parts if part]
    for start in range(len(parts)):
        for width in (1, 2, 3):
            end = start + width
            if end > len(parts):
                break
            word = "".join(parts[start:end])
            found = _WORD_TO_CLASS.get(word)
            if found is not None and (
                word in VENDOR_WORDS or all(part in CONTAINER_PARTS for part in parts[end:])
            ):
                return found
    return "comments" if _COMMENT_MARKER.search(lowered) else None


def _marker_noise_class(marker: str) -> str | None:
    """The noise class of the first name in a class or id value that has one, or None."""
    # A name's letters are part of the whole value's: when the value holds no noise word,
    # none of its names does (the first test of `name_noise_class`), and most values hold none.
    if not _holds_noise_word(marker.lower()):
        return None
    return next((c for c in map(name_noise_class, marker.split()) if c is not None), None)


def element_noise_class(element: HtmlElement, memo: dict[str, str | None]) -> str | None:
    """The noise class of an element by its tag, role, aria-modal, class and id, or None."""
    if element.tag == "dialog" or element.get("aria-modal") == "true":
        return "dialog"
    # A figure's caption describes a picture, not the story. Only the tag: a class named
    # "caption" also marks a video's description or a photo post's text (`wp-caption`).
    if element.tag == "figcaption":
        return "caption"
    role = element.get("role")
    if role and role.strip().lower() in _DIALOG_ROLES:
        return "dialog"
    for marker in (element.get("class"), element.get("id")):
        if not marker:
            continue
        found = memo.get(marker, "")
        if found == "":
            found = memo[marker] = _marker_noise_class(marker)
        if found is not None:
            return found
    return None


def is_teaser(element: HtmlElement) -> bool:
    """Whether an element is one item of a list of teasers: short, headed by a link, repeated.

    Lists of other stories (related, most read, more from the section) repeat one item shape:
    a linked headline with a blurb or a picture. A body's own list items carry a link inside a
    sentence, not a linked headline that is most of the item.
    """
    if element.tag not in _TEASER_TAGS:
        return False
    parent = element.getparent()
    if parent is None:
        return False
    # Counted piece by piece: a long container is ruled out without copying all its text.
    chars = 0
    for text in element.itertext():
        chars += _visible_chars(text)
        if chars > TEASER_MAX_CHARS:
            return False
    if not chars:
        return False
    if not _has_alike_siblings(element, parent):
        return False
    linked = sum(_visible_chars(a.text_content()) for a in element.iter("a") if a.get("href"))
    # A headline and a blurb or a picture: a bare list of links (a body's reading list, which
    # some readers count as the article) is left to the scorer.
    return TEASER_LINK_SHARE * chars <= linked and (
        linked < chars or next(element.iter("img", "picture"), None) is not None
    )


def _has_alike_siblings(element: HtmlElement, parent: HtmlElement) -> bool:
    """Whether TEASER_SIBLINGS children of `parent` (the element among them) share its tag and
    class; counting stops there, since a long list is the common case."""
    tag = element.tag
    name = element.get("class")
    alike = 0
    for sibling in parent:
        if sibling.tag == tag and sibling.get("class") == name:
            alike += 1
            if alike >= TEASER_SIBLINGS:
                return True
    return False


def _visible_chars(text: str) -> int:
    """Characters of a text that are not white space."""
    return len(text) - sum(map(str.isspace, text))


def is_copyright_line(text: str) -> bool:
    """Whether a block reads as a copyright notice."""
    return len(text) <= _COPYRIGHT_MAX_CHARS and _COPYRIGHT.search(text.lower()) is not None


def find_noise_segments(document: Document, kept: Iterable[int]) -> set[int]:
    """The segments of the page that lie in recognised noise, judged from the kept blocks.

    Every segment under a dropped container is returned, kept or not, so that no later step
    brings it back.
    """
    kept = list(kept)
    if not kept:
        return set()
    segments = document.segments
    parents = document.node_parents
    elements = document.node_elements
    memo: dict[str, str | None] = {}
    # Per walked node: the outermost noise container at or above it (-1: none), memoised.
    outer: dict[int, int] = {}
    title_nodes = {segments[i].node for i in document.title_segments[:1]}
    # A container that holds the headline is the article's, whatever it is called: it is no
    # candidate, so that a thread inside a wrapper so named ("comments-open") is still found.
    wrappers: set[int] = set()
    for node in title_nodes:
        while node >= 0:
            wrappers.add(node)
            node = parents[node]
    # Nor is a teaser anything that holds the headline or a copy of it: a blog lists its
    # latest posts, this one among them, and only the first copy of a line is kept.
    headlines = {segments[i].text for i in document.title_segments}
    headed: set[int] = set()
    for index in [*document.title_segments, *(i for i in kept if segments[i].text in headlines)]:
        node = segments[index].node
        while node >= 0 and node not in headed:
            headed.add(node)
            node = parents[node]
    kinds: dict[int, str | None] = {}
    pieces = document.pieces
    piece_starts = document.node_starts
    piece_ends = document.node_ends
    visible: dict[int, int] = {}

    def is_long(node: int) -> bool:
        # The walk's pieces are a subset of the element's text (no blank runs, no scripts), so
        # more than TEASER_MAX_CHARS in them rules out a teaser as `is_teaser` would, without
        # walking the element's text again: most candidates are the body's long containers.
        chars = 0
        for index in range(piece_starts[node], piece_ends[node]):
            count = visible.get(index)
            if count is None:
                count = visible[index] = sum(map(len, pieces[index].text.split()))
            chars += count
            if chars > TEASER_MAX_CHARS:
                return True
        return False

    def kind_of(node: int) -> str | None:
        if node not in kinds:
            element = elements[node]
            found = element_noise_class(element, memo)
            if (
                found is None
                and node not in headed
                and element.tag in _TEASER_TAGS
                and not is_long(node)
                and is_teaser(element)
            ):
                found = "related"
            kinds[node] = found
        return kinds[node]

    def outermost(node: int) -> int:
        chain = []
        while node >= 0 and node not in outer:
            chain.append(node)
            node = parents[node]
        found = outer.get(node, -1) if node >= 0 else -1
        for step in reversed(chain):
            if found < 0 and step not in wrappers and kind_of(step) is not None:
                found = step
            outer[step] = found
        return found

    containers: dict[int, int] = {}  # container node -> kept chars inside
    clean = 0
    for index in kept:
        segment = segments[index]
        container = outermost(segment.node)
        if container < 0:
            clean += len(segment.text)
        else:
            containers[container] = containers.get(container, 0) + len(segment.text)
    noise: set[int] = set()
    if containers and clean >= MIN_CLEAN_CHARS_BESIDE_COMMENTS:
        # Kept text per class: a site that marks each gated paragraph `paywall` has many small
        # containers that together outweigh the rest.
        per_kind: dict[str | None, int] = {}
        for node, chars in containers.items():
            per_kind[kinds[node]] = per_kind.get(kinds[node], 0) + chars
        dropped = {
            node
            for node in containers
            if clean >= _min_clean_chars(kinds[node])
            and (kinds[node] in OUTWEIGHING or per_kind[kinds[node]] < clean)
        }
        pieces = document.pieces
        for node in dropped:
            # Every segment with text in the container's subtree, kept or not.
            start, end = document.node_starts[node], document.node_ends[node]
            if start < end:
                noise.update(range(pieces[start].segment, pieces[end - 1].segment + 1))
    noise.update(i for i in kept if is_copyright_line(segments[i].text))
    noise.update(_linked_lines(document, [i for i in kept if i not in noise], headlines))
    noise.update(_second_article_segments(document, [i for i in kept if i not in noise]))
    return noise


def _linked_lines(document: Document, kept: list[int], headlines: set[str]) -> set[int]:
    """Kept lines that are all link text: headlines of other stories, linked from the body.

    Headings and copies of them are left alone (a blog links its post's own title), and so is
    the headline; they go only while MIN_CLEAN_CHARS of other kept text stays.
    """
    segments = document.segments
    pieces = document.pieces
    # A blog lists its latest posts, this one among them, and only the first copy of a line is
    # kept: a link that repeats a heading of the page is the headline's kept copy. Gathered
    # when the first linked line is met: most pages have none.
    headings: set[str] | None = None
    lines: set[int] = set()
    clean = 0
    for index in kept:
        segment = segments[index]
        text = segment.text
        span = range(segment.first_piece, segment.last_piece)
        # Most kept blocks hold no link at all: their text is not counted character by character.
        if segment.block.tag in HEADING_TAGS or not any(pieces[j].in_link for j in span):
            clean += len(text)
            continue
        linked = total = 0
        for j in span:
            piece = pieces[j]
            chars = _visible_chars(piece.text)
            total += chars
            if piece.in_link:
                linked += chars
        if (
            total
            and linked >= LINKED_LINE_SHARE * total
            and len(split_words(text)) >= LINKED_LINE_WORDS
        ):
            if headings is None:
                headings = {s.text for s in segments if s.block.tag in HEADING_TAGS} | headlines
            if text not in headings:
                lines.add(index)
                continue
        clean += len(text)
    return lines if clean >= MIN_CLEAN_CHARS else set()


def _min_clean_chars(kind: str | None) -> int:
    """Article text that must stay outside containers of this class for them to go."""
    return MIN_CLEAN_CHARS_BESIDE_COMMENTS if kind == "comments" else MIN_CLEAN_CHARS


def _inside(node: int, ancestor: int, parents: list[int]) -> bool:
    """Whether walked node `node` is `ancestor` or lies below it."""
    while node >= 0:
        if node == ancestor:
            return True
        node = parents[node]
    return False


def _second_article_segments(document: Document, kept: list[int]) -> set[int]:
    """Kept segments in stories appended after the page's own: other `<article>`s with `<h1>`."""
    segments = document.segments
    parents = document.node_parents
    elements = document.node_elements
    # The outermost `<article>` above each kept segment, and the kept text in each.
    articles: dict[int, int] = {}
    owner: dict[int, int] = {}
    for index in kept:
        node = segments[index].node
        found = -1
        while node >= 0:
            if elements[node].tag == "article":
                found = node
            node = parents[node]
        if found >= 0:
            owner[index] = found
            articles[found] = articles.get(found, 0) + len(segments[index].text)
    stories = [
        node
        for node, chars in articles.items()
        # An `<h1>` below the `<article>`: `iter` searches in C, where `find(".//h1")` goes
        # through ElementPath.
        if chars >= _SECOND_ARTICLE_CHARS and next(elements[node].iter("h1"), None) is not None
    ]
    if len(stories) < 2:
        return set()
    title_nodes = [segments[i].node for i in document.title_segments[:1]]
    own = next(
        (n for n in stories if any(_inside(t, n, parents) for t in title_nodes)), min(stories)
    )
    others = set(stories) - {own}
    return {index for index, node in owner.items() if node in others}
