"""Readers' comments: blocks inside a comment thread are not the article, however long they are.

The block scorer sees a comment's paragraph as what it is, a long run of prose, and the class
and id hints it learnt from lump "comment" in with every other sidebar word. A thread is easy
to name, though: its containers say so ("comments", "commentlist", "dsq-comment", a Disqus
frame). Blocks below such an element go, unless the element also holds the headline (a page
that wraps everything in "comment-form-wrapper") or the page keeps almost nothing else.
"""

from __future__ import annotations

import re

import numpy as np

from newscrawl.extraction.block_features import FEATURE_NAMES
from newscrawl.extraction.document import Document

# "comment" but not "commentary" or "commentator" (opinion pieces mark their body so).
_THREAD_MARKER = re.compile(r"comment(?!ar|at)|disqus|\bdsq\b|dsq-")
_LOG_WORDS = FEATURE_NAMES.index("log_words")
_IS_TITLE = FEATURE_NAMES.index("is_title")


def drop_comment_threads(
    document: Document, features: np.ndarray, kept: list[int], *, min_other_words: int
) -> list[int]:
    """`kept` without the blocks inside a comment thread, when enough other text remains."""
    if not kept:
        return kept
    elements = document.node_elements
    parents = document.node_parents
    segments = document.segments
    # Per walked element: the nearest thread element at or above it, -1 for none (memoised).
    thread_of: dict[int, int] = {}

    def thread(node: int) -> int:
        chain = []
        found = -1
        while node >= 0:
            if node in thread_of:
                found = thread_of[node]
                break
            chain.append(node)
            element = elements[node]
            marker = element.get("class") or ""
            identifier = element.get("id")
            if identifier:
                marker = f"{marker} {identifier}"
            if marker:
                marker = marker.lower()
                # The plain substring tests skip the regex on almost every element.
                if ("comment" in marker or "dsq" in marker or "disqus" in marker) and (
                    _THREAD_MARKER.search(marker)
                ):
                    found = node
                    break
            node = parents[node]
        # The thread found (or none) holds every element climbed on the way.
        for step in chain:
            thread_of[step] = found
        return found

    in_thread = [thread(segments[i].node) for i in kept]
    titles = [i for i in np.flatnonzero(features[:, _IS_TITLE] > 0).tolist()]
    # A "thread" that holds the headline is a page wrapper, not a thread.
    wrappers = {thread(segments[i].node) for i in titles} - {-1}
    drop = {
        i for i, owner in zip(kept, in_thread, strict=True) if owner >= 0 and owner not in wrappers
    }
    if not drop:
        return kept
    words = np.rint(np.expm1(features[:, _LOG_WORDS]))
    other = sum(float(words[i]) for i in kept if i not in drop and not features[i, _IS_TITLE])
    if other < min_other_words:
        return kept
    return [i for i in kept if i not in drop]
