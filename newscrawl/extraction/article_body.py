"""The article body a page states in its scripts: JSON-LD `articleBody` or embedded page state.

Some pages render their article from JSON in a script (a client-side app), and many also put the
whole body in JSON-LD for search engines. When the visible blocks the builder kept are missing or
far shorter than that body, the body fills the gap: first by adding the visible blocks whose text
it contains (they keep their markup), then, if the page still shows far less, by the body itself
as plain paragraphs.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Set as AbstractSet
from typing import Any

from lxml.html import HtmlElement

from newscrawl.extraction.document import STATE_ASSIGNMENT, Document
from newscrawl.extraction.word_tokens import split_words

# A body shorter than this (about 40 words) is a teaser or a description, not the article.
MIN_BODY_CHARS = 250
# Below this share of the body's words the visible article is short of it: hidden blocks the body
# holds are added. Above it, what the body has beyond the visible article is mostly the
# publisher's own extras (related links, calls to action, captions), not missed paragraphs.
SHORTER = 0.8
# Below this share, even with those blocks, the body itself replaces the visible article.
FAR_SHORTER = 0.5
# A hidden block joins the article when the body holds its text and it has at least this many
# characters (short labels are in any body by chance).
_RESTORE_MIN_CHARS = 25
# A visible article of this many characters must agree with the body: the body must hold this
# share of it (its headline, captions and byline need not be in the body).
_CHECKED_CHARS = 120
_AGREEMENT = 0.5
# Page state is searched only when the visible article is shorter than this (about 150 words).
_STATE_VISIBLE_CHARS = 1000
# Page state: JSON data blocks (Next.js `__NEXT_DATA__`, Nuxt and others) and the
# `window.__X_STATE__ = {...}` assignments of other apps.
_STATE_TYPES = frozenset({"application/json"})
_STATE_ASSIGNMENT = STATE_ASSIGNMENT
# A page-state string is prose when it has this many words and ends a sentence.
_PROSE_MIN_WORDS = 12
_SENTENCE_END = (".", "!", "?", "\u3002", "\uff01", "\uff1f", '"', "\u201d", "\u00bb", ")")
# A page-state article is the smallest JSON subtree that holds this share of the prose.
_STATE_ARTICLE_SHARE = 0.6
_MAX_STATE_DEPTH = 40
_TAG = re.compile(r"<[^>]*>")
_BREAKING_TAG = re.compile(
    r"<\s*(?:br|/p|/div|/h[1-6]|/li|/blockquote|/section|p|h[1-6]|li)\b[^>]*>", re.IGNORECASE
)
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]{2,8});")
_BLANK_LINES = re.compile(r"\s*\n\s*")
_SPACES = re.compile(r"[^\S\n]+")
# lxml refuses these in element text; a JSON string may hold them.
_NON_WORD = re.compile(r"[\W_]+")
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def complete_from_structured_body(
    document: Document,
    kept: list[int],
    paragraphs: list[str],
    *,
    article_body: str | None,
    excluded: AbstractSet[int] = frozenset(),
) -> tuple[list[int], list[str], bool]:
    """Kept blocks and texts, completed from the body the page's scripts hold when it shows less.

    `article_body` is the page's JSON-LD `articleBody` (read with the metadata). Without one,
    and when the page shows next to nothing, the body is looked for in its app state. Blocks in
    `excluded` (recognised noise) are never added. The third value is True when the body
    replaced the visible blocks: the texts are then its paragraphs and the kept list is empty.
    """
    body = split_paragraphs(article_body) if article_body else []
    if len(body) == 0 and sum(map(len, paragraphs)) < _STATE_VISIBLE_CHARS:
        # App state is large (100s of KiB): it is read only when the page shows next to nothing.
        body = _page_state_body(list(document.tree.iter("script")))
    if not body:
        return kept, paragraphs, False
    return fill_from_body(document, kept, paragraphs, body, excluded=excluded)


def fill_from_body(
    document: Document,
    kept: list[int],
    paragraphs: list[str],
    body: list[str],
    *,
    excluded: AbstractSet[int] = frozenset(),
) -> tuple[list[int], list[str], bool]:
    """`complete_from_structured_body` with the body's paragraphs given."""
    # Texts are compared as lower-cased words between single spaces: markup, punctuation and
    # quotes may differ between the page and its JSON. Lengths are in characters, which count
    # unspaced scripts too.
    whole = f" {normalise_words(' '.join(body))} "
    if len(whole) < MIN_BODY_CHARS:
        return kept, paragraphs, False
    shown = [normalise_words(text) for text in paragraphs]
    visible = sum(map(len, shown))
    if visible >= SHORTER * len(whole):
        return kept, paragraphs, False
    if visible >= _CHECKED_CHARS:
        agreeing = sum(len(text) for text in shown if f" {text} " in whole)
        if agreeing < _AGREEMENT * visible:
            # The body tells another story (another article of a list, the teasers of a state).
            return kept, paragraphs, False
    kept_set = set(kept)
    restored = []
    for segment in document.segments:
        if segment.index in kept_set or segment.index in excluded:
            continue
        if len(segment.text) >= _RESTORE_MIN_CHARS:
            text = normalise_words(segment.text)
            if len(text) >= _RESTORE_MIN_CHARS and f" {text} " in whole:
                restored.append(segment.index)
                visible += len(text)
    if visible < FAR_SHORTER * len(whole):
        return [], [_CONTROL_CHARACTERS.sub("", text) for text in body], True
    if not restored:
        return kept, paragraphs, False
    texts = dict(zip(kept, paragraphs, strict=True))
    for index in restored:
        texts[index] = document.segments[index].text
    order = sorted(texts)
    return order, [texts[index] for index in order], False


def normalise_words(text: str) -> str:
    """The text's words, lower-cased, between single spaces."""
    return _NON_WORD.sub(" ", text.lower()).strip()


def split_paragraphs(text: str) -> list[str]:
    """Plain paragraphs of a body string, which may hold HTML markup or escaped entities."""
    # Bodies come escaped once or twice ("&amp;ccedil;"): unescape until nothing changes.
    for _ in range(3):
        if not _ENTITY.search(text):
            break
        text = html.unescape(text)
    if "<" in text and ">" in text:
        text = _TAG.sub("", _BREAKING_TAG.sub("\n", text))
    text = _SPACES.sub(" ", text.replace("\xa0", " "))
    return [line for line in _BLANK_LINES.split(text.strip()) if line]


def _page_state_body(scripts: list[HtmlElement]) -> list[str]:
    """The article held in a client-side app's page state, as paragraphs."""
    best: list[str] = []
    for script in scripts:
        text = script.text
        if not text:
            continue
        if (script.get("type") or "").strip().lower() in _STATE_TYPES:
            data = _load_json(text)
        else:
            match = _STATE_ASSIGNMENT.match(text)
            if match is None:
                continue
            data = _load_json(text[match.end() :].strip().rstrip(";"))
        if data is None:
            continue
        found = _state_article(data)
        if sum(map(len, found)) > sum(map(len, best)):
            best = found
    return [line for text in best for line in text.split("\n")]


def _load_json(text: str) -> Any:
    """Parsed JSON, or None when it is not JSON (or nests deeper than the decoder's stack)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _state_article(data: Any) -> list[str]:
    """The prose of the smallest subtree of the state that holds most of its prose.

    App state holds the article beside navigation, teasers of other stories and settings. The
    article's paragraphs are long sentences grouped under one node (a list of content blocks);
    teasers are headlines, and the footer is a line or two.
    """
    prose: list[str] = []
    seen: set[str] = set()
    # Per node, in preorder: (depth, first prose index, prose index after its subtree).
    nodes: list[tuple[int, int, int]] = []

    def walk(value: Any, depth: int) -> None:
        if isinstance(value, str):
            text = _prose(value)
            if text and text not in seen:
                seen.add(text)
                prose.append(text)
            return
        if depth > _MAX_STATE_DEPTH or not isinstance(value, dict | list):
            return
        slot = len(nodes)
        nodes.append((depth, len(prose), 0))
        for child in value.values() if isinstance(value, dict) else value:
            walk(child, depth + 1)
        nodes[slot] = (depth, nodes[slot][1], len(prose))

    walk(data, 0)
    if not prose:
        return []
    lengths = [len(split_words(text)) for text in prose]
    total = sum(lengths)
    best = (0, 0, len(prose))
    for depth, first, end in nodes:
        if depth >= best[0] and sum(lengths[first:end]) >= _STATE_ARTICLE_SHARE * total:
            best = (depth, first, end)
    return prose[best[1] : best[2]]


def _prose(value: str) -> str:
    """The text of a string that reads as a paragraph of prose, else an empty string."""
    if len(value) < 40 or value.startswith(("http://", "https://", "{", "[")):
        return ""
    paragraphs = split_paragraphs(value)
    text = " ".join(paragraphs)
    if not text.endswith(_SENTENCE_END) or len(split_words(text)) < _PROSE_MIN_WORDS:
        return ""
    return "\n".join(paragraphs)
