"""The lede a page states in its description: kept when the scorer doubted its visible copy.

News pages print a summary (standfirst, deck) between the headline and the body, and most give
the same text as their `og:description` or `description` meta. The block scorer often doubts
it: it sits in the page's header among the kicker, byline and date, in a class named for the
header or a "teaser". When no kept block holds the description, the first block before the
body's last kept block that reads it (most of the words of each in the other; of a description
cut short with an ellipsis, most of its words) is the lede and is kept. Words are compared as
the block features count them, so unspaced scripts count too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet

from newscrawl.extraction.document import Document
from newscrawl.extraction.word_tokens import split_words

# A description cut short ends in one of these: it need only be the start of its block.
_ELLIPSES = ("\u2026", "...")
# A block with more of its text in links than this is a teaser of the story, not its lede.
_MAX_LINK_SHARE = 0.3


def add_stated_lede(
    document: Document,
    kept: list[int],
    paragraphs: list[str],
    description: str | None,
    *,
    min_words: int,
    min_share: float,
    excluded: AbstractSet[int] = frozenset(),
) -> tuple[list[int], list[str]]:
    """`kept` and `paragraphs` with the block that repeats the page's description added.

    The description needs `min_words` words; a block matches when it holds `min_share` of the
    description's words and the description holds `min_share` of the block's (the latter is
    not asked of a description cut short). Blocks in `excluded` (recognised furniture), the
    headline and blocks mostly of link text are never added.
    """
    if not description or not min_words:
        return kept, paragraphs
    text = description.rstrip()
    truncated = text.endswith(_ELLIPSES)
    wanted = Counter(split_words(text.rstrip(".\u2026").lower()))
    size = sum(wanted.values())
    if size < min_words:
        return kept, paragraphs
    titles = set(document.title_segments)
    body = [i for i in kept if i not in titles]
    if not body:
        return kept, paragraphs
    # A block missing every one of these words lacks more than (1 - min_share) of the
    # description: a substring test in C rules most blocks out before they are split.
    probes = sorted(wanted, key=len, reverse=True)[: int((1 - min_share) * size) + 1]

    def may_match(text: str) -> bool:
        lowered = text.lower()
        return any(word in lowered for word in probes)

    # Already kept: the scorer took the lede, or the body opens with it.
    if any(
        may_match(paragraph) and _common_words(paragraph, wanted) >= min_share * size
        for paragraph in paragraphs
    ):
        return kept, paragraphs
    kept_set = set(kept)
    segments = document.segments
    pieces = document.pieces
    # Only up to the body's last kept block: a copy below the article is a share box or a
    # teaser of this story in a list.
    for index in range(max(body)):
        if index in kept_set or index in excluded or index in titles:
            continue
        segment = segments[index]
        # Each word takes a character: most blocks (menus, labels) are ruled out unsplit.
        if len(segment.text) < min_share * size or not may_match(segment.text):
            continue
        words = Counter(split_words(segment.text.lower()))
        count = sum(words.values())
        if count < min_words:
            continue
        common = sum((words & wanted).values())
        if common < min_share * size or (common < min_share * count and not truncated):
            continue
        linked = sum(
            len(pieces[j].text)
            for j in range(segment.first_piece, segment.last_piece)
            if pieces[j].in_link
        )
        if linked > _MAX_LINK_SHARE * len(segment.text):
            continue
        texts = dict(zip(kept, paragraphs, strict=True))
        texts[index] = segment.text
        order = sorted(texts)
        return order, [texts[i] for i in order]
    return kept, paragraphs


def _common_words(text: str, wanted: Counter[str]) -> int:
    """How many of the wanted words (with their counts) the text holds."""
    return sum((Counter(split_words(text.lower())) & wanted).values())
