"""The article's tags and keywords, from its meta tags and JSON-LD, deduplicated."""

from __future__ import annotations

import html
import re
from typing import Any

# article:tag is one tag per meta element (though some sites list several in one); the
# others are comma lists.
_TAG_META = ("article:tag", "news_keywords", "keywords", "og:article:tag", "parsely-tags")
_SEPARATORS = re.compile(r"\s*[,;\uff0c\u3001]\s*")
# A "tag" longer than this is a sentence (a description pasted into keywords).
_MAX_TAG_CHARS = 80
_MAX_TAGS = 50
# CMS ids put among the tags ("26157981-b4f7-..."): no reader's keyword.
_ID_LIKE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-|[\d\W_]+$", re.IGNORECASE)


def find_tags(
    metas: dict[str, list[str]], articles: list[dict[str, Any]], site_name: str | None = None
) -> list[str]:
    """Tags from article:tag, news_keywords, keywords and JSON-LD keywords, first spelling kept.

    The site's own name, which site-wide keyword lists repeat on every page, is no tag.
    """
    raws: list[str] = [value for key in _TAG_META for value in metas.get(key, ())]
    for article in articles:
        keywords = article.get("keywords")
        if isinstance(keywords, str):
            raws.append(keywords)
        elif isinstance(keywords, list):
            raws.extend(value for value in keywords if isinstance(value, str))
    tags = dedupe_tags(tag for raw in raws for tag in _SEPARATORS.split(html.unescape(raw)))
    site = (site_name or "").casefold()
    return [tag for tag in tags if tag.casefold() != site and not _ID_LIKE.match(tag)]


def dedupe_tags(tags: Any) -> list[str]:
    """Tags with whitespace collapsed, each once (ignoring case), in first-seen order."""
    seen: set[str] = set()
    kept: list[str] = []
    for raw in tags:
        tag = " ".join(str(raw).split())
        key = tag.casefold()
        if not tag or len(tag) > _MAX_TAG_CHARS or key in seen:
            continue
        seen.add(key)
        kept.append(tag)
        if len(kept) >= _MAX_TAGS:
            break
    return kept
