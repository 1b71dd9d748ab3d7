"""Golden tests over generated neighbour groups: template noise, related-link lists, article."""

from __future__ import annotations

import dataclasses

import pytest

from newscrawl.extraction import ExtractionConfig, extract, learn_static_noise
from tests.extraction.fixtures.neighbour_sites import GeneratedPage, generate_site

SITES = {
    "classic": generate_site(seed=1, layout="classic"),
    "divs": generate_site(seed=2, layout="divs"),
    "classic-other": generate_site(seed=7, layout="classic"),
}
CONFIGS = {
    "default": ExtractionConfig(),
    "rules": dataclasses.replace(ExtractionConfig(), use_block_scorer=False),
}


def _assert_article(text: str, page: GeneratedPage) -> None:
    for paragraph in page.paragraphs:
        assert paragraph in text
    for noise in page.noise:
        assert noise not in text, noise


@pytest.mark.parametrize("config_name", sorted(CONFIGS))
@pytest.mark.parametrize("site", sorted(SITES))
def test_neighbour_mode_returns_exactly_the_article(site: str, config_name: str) -> None:
    pages = SITES[site]
    config = CONFIGS[config_name]
    for index, page in enumerate(pages):
        neighbours = [other.html for other in pages if other is not page]
        template = learn_static_noise(neighbours, config)
        article = extract(page.html, title=page.title, template=template, config=config)
        _assert_article(article.text, page)
        assert article.method == "neighbours"
        assert article.title == page.title, index


@pytest.mark.parametrize("site", sorted(SITES))
def test_single_page_mode_keeps_the_article_and_drops_link_lists(site: str) -> None:
    page = SITES[site][0]
    article = extract(page.html)
    for paragraph in page.paragraphs:
        assert paragraph in article.text
    for noise in ("Privacy policy", "Related stories", "Share on Facebook"):
        assert noise not in article.text
    assert article.method == "single"


def test_paragraphs_are_separated_by_blank_lines() -> None:
    page = SITES["divs"][1]
    template = learn_static_noise([p.html for p in SITES["divs"] if p is not page])
    article = extract(page.html, title=page.title, template=template)
    body = [chunk for chunk in article.text.split("\n\n") if chunk in page.paragraphs]
    assert body == page.paragraphs
