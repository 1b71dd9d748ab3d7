"""Container-level decision, on handwritten pages with chosen scores."""

from __future__ import annotations

import numpy as np

from newscrawl.extraction import ExtractionConfig, extract
from newscrawl.extraction.block_features import compute_block_features
from newscrawl.extraction.container_fill import (
    add_doubted_body,
    add_named_body,
    add_prose_neighbours,
    fill_article_containers,
    named_body,
)
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.prompt_noise import find_noise_segments

CONFIG = ExtractionConfig()


def _sentence(topic: str) -> str:
    return f"The council said on Monday that the {topic} plan would go ahead as agreed last year."


BODY = [_sentence(f"topic{k}") for k in range(8)]

ARTICLE_PAGE = f"""<html><body>
<nav><ul><li><a href="/a">Home</a></li><li><a href="/b">World</a></li></ul></nav>
<article>
  <h1>Council approves the plan</h1>
  <div class="para"><p>{BODY[0]}</p></div>
  <div class="para"><p>{BODY[1]}</p></div>
  <div class="para"><p>{BODY[2]}</p></div>
  <h2>What happens next</h2>
  <ul><li>Work starts in spring</li><li>Roads close in June</li></ul>
  <figure>
    <figcaption>A photo of the council chamber taken by our photographer.</figcaption>
  </figure>
  <div class="para"><p>{BODY[3]}</p></div>
  <div class="ad"><div><div>
    <p>Advertisement text that is long enough to count here, yes.</p>
  </div></div></div>
  <div class="para"><p>{BODY[4]}</p></div>
  <div class="para"><p>{BODY[5]}</p></div>
</article>
<div class="comments" id="comments">
  <div class="comment-body"><p>{BODY[6]}</p></div>
  <div class="comment-body"><p>{BODY[7]}</p></div>
</div>
</body></html>"""


def _scored(html: str, likely: dict[str, float]) -> tuple[Document, np.ndarray, np.ndarray]:
    """The page's block features and a probability per block: `likely` by text, else 0.01."""
    document = parse_document(html)
    features = compute_block_features(document, frozenset(), CONFIG)
    probabilities = np.array([likely.get(s.text, 0.01) for s in document.segments])
    return document, features, probabilities


def _fill(document: Document, features: np.ndarray, probabilities: np.ndarray) -> list[str]:
    kept = np.flatnonzero(probabilities >= 0.5).tolist()
    filled = fill_article_containers(
        document,
        features,
        probabilities,
        kept,
        min_paragraph_words=CONFIG.fill_paragraph_words,
        min_twin_words=CONFIG.fill_twin_words,
        min_probability=CONFIG.fill_min_probability,
        min_mean=CONFIG.fill_min_mean,
        max_link_fraction=CONFIG.fill_link_fraction,
        max_gap=CONFIG.fill_max_gap,
    )
    return [document.segments[i].text for i in filled]


def test_the_rest_of_a_kept_body_comes_back_with_its_subheadings_and_lists() -> None:
    # The scorer kept two paragraphs and doubted the others of the same markup.
    likely = {BODY[0]: 0.9, BODY[1]: 0.8, BODY[2]: 0.2, BODY[3]: 0.15, BODY[4]: 0.3}
    likely[BODY[5]] = 0.2
    document, features, probabilities = _scored(ARTICLE_PAGE, likely)
    texts = _fill(document, features, probabilities)
    for paragraph in BODY[:6]:
        assert paragraph in texts
    for continuation in ("What happens next", "Work starts in spring", "Roads close in June"):
        assert continuation in texts
    # Captions, widgets nested deeper than the body, the comments and the menu stay out.
    assert not any("photographer" in text or "Advertisement" in text for text in texts)
    assert BODY[6] not in texts and BODY[7] not in texts
    assert "Home" not in texts


def test_one_kept_paragraph_and_no_likely_twin_say_nothing_about_the_body() -> None:
    document, features, probabilities = _scored(ARTICLE_PAGE, {BODY[0]: 0.9, BODY[1]: 0.05})
    assert _fill(document, features, probabilities) == [BODY[0]]
    # One twin the scorer gave some chance bounds the container: the body comes back.
    document, features, probabilities = _scored(ARTICLE_PAGE, {BODY[0]: 0.9, BODY[1]: 0.3})
    assert BODY[5] in _fill(document, features, probabilities)


def test_a_body_the_scorer_rules_out_is_not_widened() -> None:
    likely = {BODY[0]: 0.9, BODY[1]: 0.9}
    likely.update({paragraph: 0.0 for paragraph in BODY[2:6]})
    document, features, probabilities = _scored(ARTICLE_PAGE, likely)
    # Kept 2 of 6 alike paragraphs, the others at 0: the group's mean is 0.3, so it fills...
    assert BODY[3] in _fill(document, features, probabilities)
    # ...but not when the config asks for more.
    kept = np.flatnonzero(probabilities >= 0.5).tolist()
    strict = fill_article_containers(
        document, features, probabilities, kept, min_paragraph_words=8, min_twin_words=4,
        min_probability=0.1, min_mean=0.5, max_link_fraction=0.3, max_gap=40,
    )  # fmt: skip
    assert BODY[3] not in [document.segments[i].text for i in strict]


def test_a_comment_thread_is_not_the_article_and_is_not_widened() -> None:
    # The scorer liked the comments best: the fill widens the article body, not the thread.
    likely = {BODY[0]: 0.6, BODY[1]: 0.6, BODY[6]: 0.95, BODY[7]: 0.95}
    document, features, probabilities = _scored(ARTICLE_PAGE, likely)
    texts = _fill(document, features, probabilities)
    assert BODY[2] in texts and BODY[5] in texts
    kept = [i for i, s in enumerate(document.segments) if s.text in texts]
    noise = find_noise_segments(document, kept)
    remaining = [document.segments[i].text for i in kept if i not in noise]
    assert BODY[6] not in remaining and BODY[7] not in remaining
    assert BODY[0] in remaining and BODY[5] in remaining


def test_extract_drops_a_comment_thread_below_the_article() -> None:
    body = "".join(f"<p>{paragraph}</p>" for paragraph in BODY[:5])
    comments = "".join(f'<div class="comment-content"><p>{p}</p></div>' for p in BODY[5:8])
    html = (
        f"<html><body><article><h1>Council approves the plan</h1>{body}</article>"
        f'<ol class="commentlist">{comments}</ol></body></html>'
    )
    text = extract(html, title="Council approves the plan").text
    assert BODY[0] in text
    for comment in BODY[5:8]:
        assert comment not in text
    # The block scorer alone keeps them: the page-furniture rule is what drops them.
    kept_anyway = extract(
        html, title="Council approves the plan", config=ExtractionConfig(drop_prompt_noise=False)
    ).text
    assert any(comment in kept_anyway for comment in BODY[5:8])


def test_a_blurb_between_two_linked_headlines_is_a_teaser_not_a_twin() -> None:
    teaser = "A short summary of another story that the site links to from this page."
    html = ARTICLE_PAGE.replace(
        f'<div class="para"><p>{BODY[5]}</p></div>',
        f'<div class="para"><p>{BODY[5]}</p></div>'
        '<div><a href="/x">Another story headline here</a></div>'
        f'<div class="para"><p>{teaser}</p></div>'
        '<div><a href="/y">Yet another story headline</a></div>',
    )
    likely = {BODY[0]: 0.9, BODY[1]: 0.8, BODY[4]: 0.3, BODY[5]: 0.3}
    document, features, probabilities = _scored(html, likely)
    texts = _fill(document, features, probabilities)
    assert BODY[4] in texts and BODY[5] in texts
    assert teaser not in texts


LONG = [
    f"Paragraph {k}: the council said on Monday that the tram plan would go ahead as agreed "
    f"last year, and that the first trains would run through the old town in the spring."
    for k in range(4)
]
# A blog's body: the post's own text, a paragraph inside it, then that paragraph's sibling
# <div>; the sidebar's prose is in another branch.
MIXED_PAGE = f"""<html><body>
<div class="post">
  <div class="post-body">{LONG[0]}<p><br>{LONG[1]}</p><div>{LONG[2]}</div></div>
</div>
<div class="box"><div><p>{LONG[3]}</p></div></div>
</body></html>"""


def _neighbours(
    document: Document,
    features: np.ndarray,
    probabilities: np.ndarray,
    words: int = CONFIG.fill_neighbour_words,
    unit_mean: float = CONFIG.fill_min_mean,
) -> list[str]:
    kept = np.flatnonzero(probabilities >= 0.5).tolist()
    added = add_prose_neighbours(
        document,
        features,
        probabilities,
        kept,
        min_paragraph_words=CONFIG.fill_paragraph_words,
        min_words=words,
        min_probability=CONFIG.fill_neighbour_probability,
        min_anchor_probability=CONFIG.block_threshold,
        max_link_fraction=CONFIG.fill_link_fraction,
        min_unit_mean=unit_mean,
    )
    return [document.segments[i].text for i in added]


def test_long_prose_next_to_a_kept_paragraph_is_the_body() -> None:
    likely = {LONG[0]: 0.8, LONG[1]: 0.4, LONG[2]: 0.35, LONG[3]: 0.45}
    document, features, probabilities = _scored(MIXED_PAGE, likely)
    texts = _neighbours(document, features, probabilities)
    assert texts == LONG[:3]


def test_neighbours_the_scorer_rules_out_or_short_lines_are_not_added() -> None:
    likely = {LONG[0]: 0.8, LONG[1]: 0.1, LONG[2]: 0.35}
    document, features, probabilities = _scored(MIXED_PAGE, likely)
    assert _neighbours(document, features, probabilities) == LONG[:1]
    likely = {LONG[0]: 0.8, LONG[1]: 0.4}
    document, features, probabilities = _scored(MIXED_PAGE, likely)
    assert _neighbours(document, features, probabilities, words=50) == LONG[:1]
    # A best guess (below the threshold) vouches for nothing.
    likely = {LONG[0]: 0.45, LONG[1]: 0.4}
    document, features, probabilities = _scored(MIXED_PAGE, likely)
    assert _neighbours(document, features, probabilities) == []


# A post whose paragraph introduces a list and quotes a source: the list items and the quoted
# paragraphs are short or doubted one by one, but they continue the body.
SPECS = [f"Spec {k}: a sensor of {k + 20} megapixels" for k in range(5)]
QUOTE = [
    "Pyongyang, October 30 (KCNA) - There is a teahouse near the falls, a scenic spot.",
    "The two-story teahouse is furnished with a souvenir counter, a soft-drink stand and open-air"
    " and indoor dining rooms for the guests.",
]
UNIT_PAGE = f"""<html><body>
<div class="post">
  <p>{LONG[0]}</p>
  <ul>{"".join(f"<li>{spec}</li>" for spec in SPECS)}</ul>
  <blockquote><p>{QUOTE[0]}</p><p>{QUOTE[1]}</p></blockquote>
  <p>{LONG[1]}</p>
</div>
<div class="box"><ul><li>{LONG[2]}</li></ul></div>
</body></html>"""


def test_a_list_or_quote_beside_a_kept_paragraph_continues_the_body() -> None:
    likely = {LONG[0]: 0.8, LONG[1]: 0.9, LONG[2]: 0.45, **dict.fromkeys(SPECS + QUOTE, 0.2)}
    document, features, probabilities = _scored(UNIT_PAGE, likely)
    texts = _neighbours(document, features, probabilities)
    assert texts == [LONG[0], *SPECS, *QUOTE, LONG[1]]


def test_a_unit_the_scorer_rules_out_or_a_list_elsewhere_is_not_added() -> None:
    likely = {LONG[0]: 0.8, LONG[1]: 0.9, **dict.fromkeys(SPECS, 0.05), **dict.fromkeys(QUOTE, 0.2)}
    document, features, probabilities = _scored(UNIT_PAGE, likely)
    # The list's mean is below the bar: the walk from the first paragraph stops there, and the
    # quote joins through the last one.
    texts = _neighbours(document, features, probabilities)
    assert texts == [LONG[0], *QUOTE, LONG[1]]
    # A list in another branch of the page is nobody's neighbour.
    assert LONG[2] not in texts


# A layout the scorer has never seen: it is sure of a short teaser and doubts each of the
# article's paragraphs, which together hold far more expected words.
TEASER = "Read how the tram plan grew from a sketch into a city project in ten years."
DOUBTED_PAGE = f"""<html><body>
<div class="story">{"".join(f"<p>{text}</p>" for text in LONG)}</div>
<ul class="more"><li><p>{TEASER}</p></li></ul>
</body></html>"""


def _doubted(document: Document, features: np.ndarray, probabilities: np.ndarray) -> list[str]:
    kept = np.flatnonzero(probabilities >= 0.5).tolist()
    added = add_doubted_body(
        document,
        features,
        probabilities,
        kept,
        min_paragraph_words=CONFIG.fill_paragraph_words,
        min_probability=CONFIG.fill_min_probability,
        max_link_fraction=CONFIG.fill_link_fraction,
    )
    return [document.segments[i].text for i in added]


def test_a_body_doubted_paragraph_by_paragraph_outweighs_a_sure_teaser() -> None:
    likely = {TEASER: 0.9, **dict.fromkeys(LONG, 0.35)}
    document, features, probabilities = _scored(DOUBTED_PAGE, likely)
    assert _doubted(document, features, probabilities) == [*LONG, TEASER]


def test_doubted_paragraphs_that_expect_fewer_words_than_the_kept_prose_stay_out() -> None:
    likely = {TEASER: 0.9, LONG[0]: 0.9, LONG[1]: 0.9, LONG[2]: 0.2, LONG[3]: 0.05}
    document, features, probabilities = _scored(DOUBTED_PAGE, likely)
    assert _doubted(document, features, probabilities) == [LONG[0], LONG[1], TEASER]


# A blog layout the scorer has never seen: it is sure of the sidebar's about box and doubts
# every line of the post, whose element the blog names `post-body entry-content`.
ABOUT = (
    "This blog is an attempt to gather and sort fascinating letters, postcards, telegrams and"
    " memos from all over the world, updated as often as possible."
)
POST = [
    "I think it is safe to assume that the advice given in response to this memo was to let"
    " the band call the album whatever it wants.",
    "FROM: Teo Macero",
    "Please advise.",
]


def _blog_page(body_class: str, post: list[str] = POST) -> str:
    lines = "".join(f"<p>{line}</p>" for line in post)
    return f"""<html><body>
<div class="main"><div class="post hentry">
  <h3 class="post-title"><a href="/p">Please advise</a></h3>
  <div class="{body_class}">{lines}</div>
</div></div>
<div class="sidebar"><div class="widget"><h2>About</h2><div class="widget-content">{ABOUT}</div>
</div></div>
</body></html>"""


def _named(html: str, likely: dict[str, float]) -> list[str]:
    document, features, probabilities = _scored(html, likely)
    kept = np.flatnonzero(probabilities >= 0.5).tolist()
    added = add_named_body(
        document,
        features,
        kept,
        min_words=CONFIG.named_body_words,
        max_link_fraction=CONFIG.fill_link_fraction,
    )
    return [document.segments[i].text for i in added]


def test_the_named_body_comes_back_when_the_scorer_kept_an_about_box() -> None:
    assert _named(_blog_page("post-body entry-content"), {ABOUT: 0.9}) == [*POST, ABOUT]


def test_itemprop_article_body_names_the_body_too() -> None:
    html = _blog_page("text").replace('class="text"', 'itemprop="articleBody"')
    assert _named(html, {ABOUT: 0.9}) == [*POST, ABOUT]


def test_a_named_body_the_scorer_mostly_kept_or_an_unnamed_one_adds_nothing() -> None:
    html = _blog_page("post-body entry-content")
    # The scorer kept the post's prose: nothing is wrong with its choice.
    assert _named(html, {ABOUT: 0.9, POST[0]: 0.9}) == [POST[0], ABOUT]
    # No element is named as the body, or a name only starts with a body name.
    assert _named(_blog_page("letter"), {ABOUT: 0.9}) == [ABOUT]
    assert _named(_blog_page("entry-content-footer"), {ABOUT: 0.9}) == [ABOUT]


def test_two_named_bodies_or_an_excerpt_cut_with_an_ellipsis_are_no_body() -> None:
    # A blog's home page names each post's text: which one would be the article?
    sidebar = '<div class="sidebar">'
    other = '<div class="entry-content"><p>Another post.</p></div>'
    two = _blog_page("entry-content").replace(sidebar, other + sidebar)
    assert named_body(parse_document(two)) == -1
    assert _named(two, {ABOUT: 0.9}) == [ABOUT]
    # A teaser of a story on another page, its blurb cut short.
    excerpt = [POST[0].removesuffix(".") + " ..."]
    assert _named(_blog_page("entry-text", excerpt), {ABOUT: 0.9}) == [ABOUT]
