"""Container-level decision: keep the rest of an article container the block scorer cut short.

The block scorer judges each block on its own, and on unseen layouts it keeps the lede and a few
paragraphs and drops the rest of the same body: paragraphs far from the title's keywords, the
slides of a listicle, the sections after a subheading. The blocks it does keep show what the
article's paragraphs look like in this page's markup. Structural rules carry that over:

- twins: a block with the same tag under a parent of the same tag and class as at least two kept
  paragraphs, inside the smallest element that holds those paragraphs, is a paragraph of the
  same body;
- gaps: between two kept paragraphs of one container, the subheadings, list items and paragraphs
  in between are the body's continuation.

- neighbours (`add_prose_neighbours`): a long doubted block next to a paragraph the scorer kept
  on its own continues it, and a quote or list there continues it as one unit;
- a doubted body (`add_doubted_body`): a group of sibling paragraphs the scorer doubted one by
  one but expected, words-weighted, to hold more than all the prose it kept, is the body.

Every rule adds only text-like blocks: few links, not repeated across the site's pages, not
dynamic noise, and not inside an element that a class, id or tag marks as boilerplate below the
container.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.block_features import FEATURE_NAMES, ancestor_flags
from newscrawl.extraction.block_hints import BOILERPLATE_TAG, NEGATIVE_HINT
from newscrawl.extraction.document import Document
from newscrawl.extraction.tag_sets import FIGURE_TAGS, HEADING_TAGS, LIST_ITEM_TAGS, PAGE_TAGS

_COLUMN = {name: k for k, name in enumerate(FEATURE_NAMES)}
_MARKED = NEGATIVE_HINT | BOILERPLATE_TAG
# Quotes and lists inside a body: their paragraphs and items continue it (`add_prose_neighbours`),
# found within this many levels above a block.
_WRAPPER_TAGS = frozenset({"blockquote", "ul", "ol", "dl"})
_WRAPPER_DEPTH = 3


@dataclass(frozen=True)
class BlockColumns:
    """What both container rules read from the block-feature table, one value per block."""

    words: np.ndarray  # word counts
    clean: np.ndarray  # few links, not static or dynamic noise
    is_title: np.ndarray
    marks: np.ndarray  # NEGATIVE_HINT | BOILERPLATE_TAG of the block itself


def lowest_common_node(document: Document, nodes: list[int]) -> int:
    """The smallest walked element whose run of pieces holds those of all `nodes` (-1: none)."""
    if not nodes:
        return -1
    # Subtrees hold disjoint or nested runs of pieces, and a parent is walked before its
    # children: an element with text is inside another when its run is, and it comes later.
    starts = document.node_starts
    ends = document.node_ends
    parents = document.node_parents
    low = min(starts[node] for node in nodes)
    high = max(ends[node] for node in nodes)
    common = nodes[0]
    while common >= 0 and not (starts[common] <= low and ends[common] >= high):
        common = parents[common]
    return common


def is_inside(document: Document, node: int, container: int) -> bool:
    """Whether a walked element is `container` or lies inside it (see `lowest_common_node`)."""
    starts = document.node_starts
    return container <= node and starts[container] <= starts[node] < document.node_ends[container]


def is_unmarked_below(
    document: Document, index: int, marks: int, container: int, container_flags: int
) -> bool:
    """Whether block `index`, with its `marks`, carries no mark beyond its container's
    (`container_flags`) and lies in no figure below the container."""
    # A mark the container has itself (a "story-sidebar" page wrapper) says nothing here.
    if marks & ~container_flags:
        return False
    node = document.segments[index].node
    while node >= 0 and node != container:
        if document.node_elements[node].tag in FIGURE_TAGS:
            return False
        node = document.node_parents[node]
    return True


def read_block_columns(features: np.ndarray, max_link_fraction: float) -> BlockColumns:
    """The word counts, cleanliness, title flags and marks of the blocks' feature rows.

    Every container rule takes them as `columns` too, so that a caller running several reads
    them once.
    """
    return BlockColumns(
        words=np.rint(np.expm1(features[:, _COLUMN["log_words"]])).astype(np.int64),
        clean=(features[:, _COLUMN["link_fraction"]] <= max_link_fraction)
        & (features[:, _COLUMN["static_fraction"]] < 0.5)
        & (features[:, _COLUMN["dynamic_fraction"]] < 0.5),
        is_title=features[:, _COLUMN["is_title"]] > 0,
        marks=(features[:, _COLUMN["negative_hint"]] > 0) * NEGATIVE_HINT
        + (features[:, _COLUMN["boilerplate_ancestor"]] > 0) * BOILERPLATE_TAG,
    )


def fill_article_containers(
    document: Document,
    features: np.ndarray,
    probabilities: np.ndarray,
    kept: list[int],
    *,
    min_paragraph_words: int,
    min_twin_words: int,
    min_probability: float,
    min_mean: float,
    max_link_fraction: float,
    max_gap: int,
    columns: BlockColumns | None = None,
) -> list[int]:
    """`kept` (ascending block indices) with the twins and gap blocks of its paragraphs added."""
    if columns is None:
        columns = read_block_columns(features, max_link_fraction)
    words, is_title, marked_blocks = columns.words, columns.is_title, columns.marks
    clean = (words > 0) & columns.clean
    links = features[:, _COLUMN["link_fraction"]]
    ends_sentence = features[:, _COLUMN["ends_sentence"]] > 0
    kept_set = set(kept)
    paragraphs = [
        i for i in kept if words[i] >= min_paragraph_words and clean[i] and not is_title[i]
    ]
    # Too little kept text says nothing about how the page marks up its body.
    if sum(words[i] for i in kept if clean[i] and not is_title[i]) < 2 * min_paragraph_words:
        return kept
    segments = document.segments
    parents = document.node_parents
    elements = document.node_elements
    # A block's own marks are in its feature row already (`marked_blocks`); containers, which
    # are few, are looked up when met.
    flags_cache: dict[int, int] = {}

    def flags_of(node: int) -> int:
        if node not in flags_cache:
            flags_cache[node] = ancestor_flags(document, [node])[0]
        return flags_cache[node]

    def inside(node: int, container: int) -> bool:
        return is_inside(document, node, container)

    def unmarked_below(i: int, container: int) -> bool:
        return is_unmarked_below(document, i, int(marked_blocks[i]), container, flags_of(container))

    def depth_below(node: int, container: int) -> int:
        depth = 0
        while node >= 0 and node != container:
            node = parents[node]
            depth += 1
        return depth

    worded = np.flatnonzero(words > 0)

    def beside_links(i: int) -> bool:
        # Teasers (linked headlines, each with its blurb) share the body's markup on old
        # table pages; a body paragraph may follow one "read more" link, not sit between two.
        k = int(np.searchsorted(worded, i))
        return all(
            0 <= j < len(worded) and worded[j] not in kept_set and links[worded[j]] >= 0.6
            for j in (k - 1, k + 1)
        )

    added: set[int] = set()
    # The article is the paragraphs' dominant shape, (tag, parent tag, parent class): the shape
    # with the most expected article words, counting the blocks the scorer doubted at their
    # probability. A shape kept less (comments the scorer let through, a teaser list) is not
    # widened.
    candidates = clean & (words >= min_twin_words) & ~is_title
    shapes: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for i in np.flatnonzero(candidates).tolist():
        shapes[_shape(elements, parents, segments[i].node)].append(i)
    evidence = {
        shape: float(sum(probabilities[i] * words[i] for i in members))
        for shape, members in shapes.items()
        if any(i in kept_set for i in members)
    }
    if not evidence:
        return kept
    page = next((n for n, element in enumerate(elements) if element.tag == "body"), -1)
    page_flags = flags_of(page) if page >= 0 else 0
    for shape in sorted(evidence, key=evidence.__getitem__, reverse=True):
        members = shapes[shape]
        # Its container: the smallest element holding its likely members (the kept ones, and
        # the ones the scorer gave some chance), so a far-off twin cannot widen it to the page.
        likely = [i for i in members if i in kept_set or probabilities[i] >= min_probability]
        container = lowest_common_node(document, [segments[i].node for i in likely])
        if container < 0 or elements[container].tag in PAGE_TAGS:
            continue
        # A container marked as boilerplate (a comment thread) is never the article, however
        # much text it holds; marks on the whole page say nothing.
        if flags_of(container) & _MARKED & ~page_flags:
            continue
        inner = [i for i in members if inside(segments[i].node, container)]
        weight = sum(words[i] for i in inner)
        # "Most of the container is article": the doubted twins ride on the group's score.
        if weight and sum(probabilities[i] * words[i] for i in inner) / weight >= min_mean:
            break
    else:
        return kept
    first, last = document.node_starts[container], document.node_ends[container]
    pieces = document.pieces
    # Twins: blocks of the dominant shape inside its container.
    for i in range(pieces[first].segment, pieces[last - 1].segment + 1):
        if i in kept_set or not clean[i] or is_title[i]:
            continue
        node = segments[i].node
        if (
            _shape(elements, parents, node) == shape
            and not beside_links(i)
            and inside(node, container)
            and unmarked_below(i, container)
        ):
            added.add(i)
    # Gaps: the blocks between two consecutive paragraphs of the container.
    body = sorted(
        i
        for i in set(paragraphs) | added
        if words[i] >= min_paragraph_words and inside(segments[i].node, container)
    )
    for a, b in zip(body, body[1:], strict=False):
        if b - a < 2 or b - a > max_gap:
            continue
        common = lowest_common_node(document, [segments[a].node, segments[b].node])
        # Widgets between paragraphs (ads, sign-up forms, galleries) nest deeper than the body.
        depth = max(depth_below(segments[a].node, common), depth_below(segments[b].node, common))
        for i in range(a + 1, b):
            if i in kept_set or not clean[i] or is_title[i]:
                continue
            node = segments[i].node
            tag = elements[node].tag
            # Other short lines between paragraphs are datelines and labels, not the body.
            if (
                tag not in HEADING_TAGS
                and tag not in LIST_ITEM_TAGS
                and words[i] < min_paragraph_words
                and not ends_sentence[i]
            ):
                continue
            if depth_below(node, common) <= depth + 1 and unmarked_below(i, common):
                added.add(i)
    if not added:
        return kept
    return sorted(kept_set | added)


def _shape(elements: list, parents: list[int], node: int) -> tuple[str, str, str]:
    """A block's tag, its parent's tag and its parent's class: how the page marks it up."""
    parent = parents[node]
    if parent < 0:
        return (str(elements[node].tag), "", "")
    element = elements[parent]
    return (str(elements[node].tag), str(element.tag), element.get("class") or "")


def add_prose_neighbours(
    document: Document,
    features: np.ndarray,
    probabilities: np.ndarray,
    kept: list[int],
    *,
    min_paragraph_words: int,
    min_words: int,
    min_probability: float,
    min_anchor_probability: float,
    max_link_fraction: float,
    min_unit_mean: float = 0.0,
    columns: BlockColumns | None = None,
) -> list[int]:
    """`kept` with the long prose blocks next to its body paragraphs in the same container.

    A body written as a container's own text and a paragraph inside it, or as sibling `<div>`s,
    has no dominant shape for the twins to widen: the scorer keeps some of its paragraphs and
    doubts the next. A doubted block right next to a paragraph the scorer kept on its own (no
    worded block between), in the same element or a sibling of it, is kept when it reads as a
    paragraph: many words, few links, not noise, not marked as boilerplate beyond what the
    paragraph is marked. The blocks so added vouch for their own next neighbour.

    A quote or a list beside such a paragraph (a sibling of it, or inside its element) is
    judged as one unit, since its items are short and a lone item says little: all of its
    blocks are kept when together they hold `min_words` words, their words-weighted mean
    probability reaches `min_unit_mean`, and each is clean prose (0: every unit's mean passes).
    """
    if columns is None:
        columns = read_block_columns(features, max_link_fraction)
    words, marks = columns.words, columns.marks
    clean = columns.clean & ~columns.is_title
    segments = document.segments
    parents = document.node_parents
    elements = document.node_elements
    kept_set = set(kept)
    worded = np.flatnonzero(words > 0).tolist()
    position = {i: k for k, i in enumerate(worded)}

    starts = document.node_starts
    ends = document.node_ends

    def near(node_a: int, node_b: int) -> bool:
        # The same element, one inside the other's element, or siblings.
        return (
            node_a == node_b
            or parents[node_b] == node_a
            or parents[node_a] == node_b
            or parents[node_a] == parents[node_b] >= 0
        )

    def prose(i: int) -> bool:
        return bool(clean[i]) and elements[segments[i].node].tag not in HEADING_TAGS

    def wrapper_of(j: int, node: int) -> int:
        # The quote or list holding block j that sits beside `node` (or inside it), if any.
        wrapper = parents[segments[j].node]
        for _ in range(_WRAPPER_DEPTH):
            if wrapper < 0:
                break
            if elements[wrapper].tag in _WRAPPER_TAGS and (
                parents[wrapper] == parents[node] or parents[wrapper] == node
            ):
                return wrapper
            wrapper = parents[wrapper]
        return -1

    def fits(j: int, current: int) -> bool:
        return (
            j not in kept_set
            and j not in added
            and prose(j)
            and not int(marks[j]) & ~int(marks[current])
            and _unfigured(document, j)
        )

    added: set[int] = set()
    # Only paragraphs the scorer kept on its own vouch for their neighbours: a best guess
    # among doubted blocks says too little about the blocks beside it.
    body = [
        i
        for i in kept
        if words[i] >= min_paragraph_words
        and probabilities[i] >= min_anchor_probability
        and prose(i)
    ]
    for start in body:
        for step in (1, -1):
            current, node = start, segments[start].node
            while True:
                k = position[current] + step
                if not 0 <= k < len(worded):
                    break
                j = worded[k]
                if near(node, segments[j].node):
                    if not (
                        fits(j, current)
                        and words[j] >= min_words
                        and probabilities[j] >= min_probability
                    ):
                        break
                    added.add(j)
                    current, node = j, segments[j].node
                    continue
                # A quote or a list beside the paragraph continues the body as one unit: its
                # items are short, so they are judged together, words-weighted.
                wrapper = wrapper_of(j, node)
                if wrapper < 0:
                    break
                unit = []
                while 0 <= k < len(worded) and starts[wrapper] <= starts[
                    segments[worded[k]].node
                ] < ends[wrapper]:
                    unit.append(worded[k])
                    k += step
                unit_words = sum(int(words[i]) for i in unit)
                if (
                    not all(fits(i, current) for i in unit)
                    or unit_words < min_words
                    or sum(probabilities[i] * words[i] for i in unit)
                    < min_unit_mean * unit_words
                ):
                    break
                added.update(unit)
                current, node = unit[-1], wrapper
    if not added:
        return kept
    return sorted(kept_set | added)


def _unfigured(document: Document, index: int) -> bool:
    """Whether a block lies outside every figure (its caption is not the body)."""
    node = document.segments[index].node
    while node >= 0:
        if document.node_elements[node].tag in FIGURE_TAGS:
            return False
        node = document.node_parents[node]
    return True


def add_doubted_body(
    document: Document,
    features: np.ndarray,
    probabilities: np.ndarray,
    kept: list[int],
    *,
    min_paragraph_words: int,
    min_probability: float,
    max_link_fraction: float,
    columns: BlockColumns | None = None,
) -> list[int]:
    """`kept` with the sibling paragraphs the scorer doubted one by one but not as a group.

    On an unseen layout the scorer may be sure of a short teaser beside the article and give
    each of the article's many paragraphs less than even odds: judged one by one, the body is
    lost. The expected article words of a group of sibling paragraphs are their words weighted
    by their probabilities. When the doubted paragraphs of one group expect more words than
    all the prose the scorer kept, that group is the body: its paragraphs with at least
    `min_probability` are kept. Only clean prose paragraphs count (few links, not noise, no
    headline or heading).
    """
    if columns is None:
        columns = read_block_columns(features, max_link_fraction)
    words = columns.words
    segments = document.segments
    elements = document.node_elements
    parents = document.node_parents
    prose = (
        columns.clean
        & ~columns.is_title
        & (words >= min_paragraph_words)
        & (probabilities >= min_probability)
    )
    kept_set = set(kept)
    kept_words = sum(
        int(words[i])
        for i in kept
        if columns.clean[i]
        and not columns.is_title[i]
        and elements[segments[i].node].tag not in HEADING_TAGS
    )
    # Without kept prose, the page's best guess (`pick_likely_blocks`) has chosen already.
    if not kept_words:
        return kept
    # No group can expect more than all doubted paragraphs together: most pages stop here.
    doubted = prose.copy()
    doubted[kept] = False
    if float(np.dot(probabilities[doubted], words[doubted])) <= kept_words:
        return kept
    groups: dict[int, list[int]] = defaultdict(list)
    for i in np.flatnonzero(prose).tolist():
        node = segments[i].node
        if elements[node].tag in HEADING_TAGS or not _unfigured(document, i):
            continue
        groups[parents[node]].append(i)
    best, best_mass = -1, float(kept_words)
    for parent, members in groups.items():
        if parent < 0:
            continue
        # Only the doubted paragraphs weigh: a kept body with one doubted promo line is no
        # second body.
        mass = float(sum(probabilities[i] * words[i] for i in members if i not in kept_set))
        if mass > best_mass:
            best, best_mass = parent, mass
    if best < 0:
        return kept
    return sorted(kept_set | set(groups[best]))


# Class and id names (lower-cased, separators dropped) that publishing systems give the element
# holding a post's or story's text: WordPress and Blogger `entry-content` and `post-body`,
# Movable Type `entry-body`, Drupal and news CMSs `article-body`, `story-body`. Only the whole
# name counts: `entry-content-footer` or `post-body-share` names something inside the body.
BODY_NAMES = frozenset(
    {"entrycontent", "entrybody", "entrytext", "postbody", "postcontent", "posttext",
     "postentry", "articlebody", "articlecontent", "articletext", "storybody",
     "storycontent", "storytext"}
)  # fmt: skip
_NAME_SEPARATORS = str.maketrans("", "", "-_")
# Every body name, with or without its separator, in any case: the cheap test that comes first.
_BODY_NAME_DEPTH = 4
_BODY_NAME = re.compile(r"(?:entry|post|article|story)[-_]?(?:content|body|text|entry)", re.I)
# How an excerpt's cut is marked ("... ", "…", WordPress's "[…]").
_ELLIPSES = ("...", "\u2026")
# The compiled candidate search (see compiled_loops), or None in pure-Python mode.
_compiled_body_candidates = (
    None if compiled_loops.node_walk is None else compiled_loops.node_walk.named_body_candidates
)


def _is_body_name(marker: str) -> bool:
    """Whether one of the names of a class or id value is a body name."""
    return any(name.lower().translate(_NAME_SEPARATORS) in BODY_NAMES for name in marker.split())


def named_body(document: Document) -> int:
    """The walked element the page names its article body (`BODY_NAMES`, or schema.org's
    `itemprop="articleBody"`), or -1 when none or more than one (a blog's home page, one per
    post): the outermost of nested ones counts once.

    Only a block's element and those up to `_BODY_NAME_DEPTH` levels above it are asked: the
    body's name is on the paragraphs' parent or just above it, and asking every element of a
    large page costs a good part of its parse. Looked up once per page.
    """
    if document.named_body_node == -2:
        document.named_body_node = _find_named_body(document)
    return document.named_body_node


def _find_named_body(document: Document) -> int:
    """`named_body`, looked up."""
    elements = document.node_elements
    candidates = None
    if _compiled_body_candidates is not None:
        # Reads the attributes in C and leaves out most elements (no name that could match).
        candidates = _compiled_body_candidates(
            elements,
            document.node_parents,
            [segment.node for segment in document.segments],
            _BODY_NAME_DEPTH,
        )
    if candidates is None:
        candidates = _body_candidates(document)
    search = _BODY_NAME.search
    found = -1
    # In walk order, the outermost of a nest comes first.
    for node in candidates:
        element = elements[node]
        # One regex test per name-bearing element; the exact test only on the few it finds.
        class_name = element.get("class")
        id_name = element.get("id")
        if not (
            (class_name is not None and search(class_name) and _is_body_name(class_name))
            or (id_name is not None and search(id_name) and _is_body_name(id_name))
            or element.get("itemprop") == "articleBody"
        ):
            continue
        if found < 0:
            found = node
        elif not is_inside(document, node, found):
            return -1
    return found


def _body_candidates(document: Document) -> list[int]:
    """The elements `named_body` asks, in walk order: every block's element and its ancestors
    up to `_BODY_NAME_DEPTH` levels above (the reference for `_node_walk.named_body_candidates`,
    which leaves out those that cannot carry a body name)."""
    parents = document.node_parents
    # A block's own element may be the body (its text between `<br>`s), or one above it: each
    # level's distinct elements once, blocks sharing their parents.
    level = {segment.node for segment in document.segments}
    candidates = set(level)
    for _ in range(_BODY_NAME_DEPTH):
        level = {parents[node] for node in level}
        level.discard(-1)
        candidates |= level
    return sorted(candidates)


def add_named_body(
    document: Document,
    features: np.ndarray,
    kept: list[int],
    *,
    min_words: int,
    max_link_fraction: float,
) -> list[int]:
    """`kept` with the clean blocks of the element the page names its body, when the scorer
    kept its prose elsewhere.

    On an unseen layout the scorer may be sure of an about box, an author profile, a comment
    form or a sidebar's teasers, and doubt every line of the post itself; it then keeps the
    furniture and little of the body. The page's own markup names its body on most publishing
    systems (`named_body`). When that element holds at least `min_words` words of clean text
    (few links, not noise, not marked as boilerplate below it, no figure caption) and the
    scorer kept more prose outside it than in it, its clean blocks are the article too.
    """
    container = named_body(document)
    if container < 0 or document.node_elements[container].tag in PAGE_TAGS:
        return kept
    columns = read_block_columns(features, max_link_fraction)
    words = columns.words
    segments = document.segments
    elements = document.node_elements
    start, end = document.node_starts[container], document.node_ends[container]
    if start >= end:
        return kept
    pieces = document.pieces
    first, last = pieces[start].segment, pieces[end - 1].segment
    container_flags = ancestor_flags(document, [container])[0]
    kept_set = set(kept)

    def is_prose(i: int) -> bool:
        return (
            bool(columns.clean[i])
            and not columns.is_title[i]
            and elements[segments[i].node].tag not in HEADING_TAGS
        )

    inside = 0
    for i in kept:
        if first <= i <= last and is_prose(i):
            inside += int(words[i])
    outside = sum(int(words[i]) for i in kept if not first <= i <= last and is_prose(i))
    if outside <= inside:
        return kept
    added = [
        i
        for i in range(first, last + 1)
        if i not in kept_set
        and words[i] > 0
        and columns.clean[i]
        and not columns.is_title[i]
        and is_unmarked_below(document, i, int(columns.marks[i]), container, container_flags)
    ]
    if sum(int(words[i]) for i in added) + inside < min_words:
        return kept
    # A blurb cut short with an ellipsis is an excerpt of a story on another page (a teaser
    # that names itself as a post's text), not this page's body.
    final = max((i for i in range(first, last + 1) if words[i] > 0), default=-1)
    if final >= 0 and segments[final].text.rstrip(" ]").endswith(_ELLIPSES):
        return kept
    return sorted(kept_set | set(added))
