"""The page's own prose in its body's container, kept only when a template was applied."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction import ExtractionConfig, learn_static_noise
from newscrawl.extraction.block_features import compute_block_features
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.static_noise import remove_static_noise
from newscrawl.extraction.template_fill import add_unique_container_prose

CONFIG = ExtractionConfig()
SURE, DOUBTED = 0.9, 0.2


def _paragraph(story: str, k: int) -> str:
    return f"The {story} story goes on in its paragraph number {k} with many plain words here."


def _page(story: str, *, lede: str, extra: str = "") -> str:
    """A site frame (menu, sidebar blurb, footer) around one story with a lede `<div>`."""
    body = "".join(f"<p>{_paragraph(story, k)}</p>" for k in range(3))
    return f"""<html><body>
<ul class="menu"><li><a href="/world">World news</a></li><li><a href="/sport">Sport</a></li></ul>
<div class="story"><h1>The {story} story</h1>
  <div class="lede">{lede}</div>
  {body}
  {extra}
</div>
<div class="side"><p>Our sidebar blurb about {story} readers that the site writes for each page.</p>
</div>
<div class="foot">Copyright the Valley Times, every right reserved since the year it began.</div>
</body></html>"""


LEDE = "VALLEY (Wire) - The harbour reopened on Monday after storms damaged all of its old piers."
# One word short of `template_fill_words` (15): the lede is kept for its length, not by chance.
SHORT_LEDE = (
    "VALLEY (Wire) - The harbour reopened on Monday after storms damaged all its old piers."
)
NEIGHBOURS = [
    _page(story, lede=f"VALLEY (Wire) - The {story} lede opens this story with its own words.")
    for story in ("library", "market", "school")
]


def _prepare(html: str, neighbours: list[str] | None) -> tuple[Document, np.ndarray]:
    """The page's document (static noise removed with the neighbours' template) and features."""
    document = parse_document(html)
    if neighbours is not None:
        remove_static_noise(document, learn_static_noise(neighbours, CONFIG), CONFIG)
    return document, compute_block_features(document, frozenset(), CONFIG)


def _index(document: Document, start: str) -> int:
    return next(i for i, s in enumerate(document.segments) if s.text.startswith(start))


def _fill(document: Document, features: np.ndarray, sure: list[int]) -> list[int]:
    """Every block doubted but the `sure` ones; the rule's result."""
    probabilities = np.full(len(document.segments), DOUBTED)
    probabilities[sure] = SURE
    return add_unique_container_prose(
        document,
        features,
        probabilities,
        sorted(sure),
        min_paragraph_words=CONFIG.fill_paragraph_words,
        min_anchor_probability=CONFIG.block_threshold,
        min_words=CONFIG.template_fill_words,
        min_probability=CONFIG.template_fill_probability,
        max_link_fraction=CONFIG.fill_link_fraction,
    )


def _body(document: Document) -> list[int]:
    return [_index(document, _paragraph("harbour", k)) for k in range(3)]


def test_the_doubted_lede_in_the_body_container_is_kept_with_a_template() -> None:
    document, features = _prepare(_page("harbour", lede=LEDE), NEIGHBOURS)
    lede = _index(document, "VALLEY (Wire) - The harbour")
    assert lede in _fill(document, features, _body(document))


def test_nothing_changes_without_a_template() -> None:
    document, features = _prepare(_page("harbour", lede=LEDE), None)
    body = _body(document)
    assert _fill(document, features, body) == sorted(body)


def test_blocks_outside_the_container_are_not_added() -> None:
    document, features = _prepare(_page("harbour", lede=LEDE), NEIGHBOURS)
    kept = _fill(document, features, _body(document))
    assert _index(document, "Our sidebar blurb") not in kept


def test_text_a_neighbour_also_holds_is_not_added() -> None:
    # The same lede on one neighbour of three: too rare to be static noise, not the page's own.
    shared = [_page("library", lede=LEDE), *NEIGHBOURS[1:]]
    document, features = _prepare(_page("harbour", lede=LEDE), shared)
    assert _index(document, "VALLEY (Wire)") not in _fill(document, features, _body(document))


def test_short_lines_figures_and_headings_are_not_added() -> None:
    extra = (
        "<p>Read more from the harbour desk.</p>"
        "<figure><figcaption>A long caption of the harbour photo, taken by a staff photographer"
        " on the morning after the storm had passed.</figcaption></figure>"
        "<h2>A subheading of the harbour story that runs to many words for this test here</h2>"
    )
    document, features = _prepare(_page("harbour", lede=LEDE, extra=extra), NEIGHBOURS)
    kept = _fill(document, features, _body(document))
    for start in ("Read more", "A long caption", "A subheading"):
        assert _index(document, start) not in kept


def test_a_lede_shorter_than_the_minimum_is_not_added() -> None:
    document, features = _prepare(_page("harbour", lede=SHORT_LEDE), NEIGHBOURS)
    lede = _index(document, "VALLEY (Wire) - The harbour")
    assert lede not in _fill(document, features, _body(document))
