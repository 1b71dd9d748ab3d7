"""The article's figures in the cleaned HTML: `<figure><img src=ABSOLUTE><figcaption>`."""

from __future__ import annotations

from pathlib import Path

import lxml.html

from newscrawl.extraction import extract
from newscrawl.extraction.config import ExtractionConfig
from tests.extraction.safety_checks import assert_safe_html

PAGES = Path(__file__).parent / "fixtures" / "article_fields"
PARAGRAPHS = "".join(
    f"<p>Paragraph {i} of the story has enough words in it to be read as article text "
    f"by the block model, about the council and the harbour.</p>"
    for i in range(4)
)


def figures_of(html: str) -> list[tuple[str | None, str | None]]:
    """(img src, figcaption text) of each figure of the cleaned HTML."""
    if not html:
        return []
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    found = []
    for figure in root.iter("figure"):
        img, caption = figure.find("img"), figure.find("figcaption")
        found.append((
            img.get("src") if img is not None else None,
            caption.text_content() if caption is not None else None,
        ))
    return found


def test_german_figure_gets_an_absolute_source_and_its_caption() -> None:
    page = (PAGES / "de_berlin.html").read_bytes()
    article = extract(page, url="https://spree.example/berlin/bruecke")
    assert figures_of(article.html) == [
        ("https://spree.example/bilder/bruecke.jpg", "Die neue Brücke am Morgen der Eröffnung.")
    ]
    assert_safe_html(article.html)
    # The figure stands where the page has it: before the first paragraph.
    assert article.html.index("<figure>") < article.html.index("Nach vier Jahren")


def test_french_lazy_image_is_read_and_an_unsafe_one_dropped() -> None:
    page = (PAGES / "fr_lyon.html").read_bytes()
    article = extract(page, url="https://lyon.example/culture/lumieres")
    assert figures_of(article.html) == [
        ("https://cdn.example.fr/img/place-bellecour.jpg",
         "La place Bellecour illuminée, samedi soir.")
    ]
    assert "javascript" not in article.html and "data:" not in article.html
    # The caption is in the figure, not repeated as a paragraph.
    assert article.html.count("La place Bellecour") == 1
    assert_safe_html(article.html)


def test_teasers_icons_and_trailing_figures_are_left_out() -> None:
    body = (
        "<article><h1>Harbour reopens</h1>"
        '<figure><img src="/lead.jpg"><figcaption>The harbour at dawn</figcaption></figure>'
        f"{PARAGRAPHS[: len(PARAGRAPHS) // 2]}"
        '<figure><a href="/other-story"><img src="/teaser.jpg"></a>'
        "<figcaption>Another story</figcaption></figure>"
        '<figure><img src="/avatar.jpg" width="48"><figcaption>Ann Lee</figcaption></figure>'
        '<div class="related-stories"><figure><img src="/related.jpg"></figure></div>'
        f"{PARAGRAPHS[len(PARAGRAPHS) // 2 :]}"
        "</article>"
        '<figure><img src="/after.jpg"><figcaption>Next story</figcaption></figure>'
    )
    page = f"<html><body>{body}</body></html>"
    article = extract(page, url="https://news.example/harbour")
    assert figures_of(article.html) == [("https://news.example/lead.jpg", "The harbour at dawn")]


def test_figures_can_be_switched_off() -> None:
    page = (PAGES / "de_berlin.html").read_bytes()
    without = ExtractionConfig(keep_figures=False)
    article = extract(page, url="https://spree.example/a", config=without)
    assert "<figure>" not in article.html
