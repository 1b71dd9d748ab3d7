"""The demo network's generated content: deterministic, grouped as the buffer needs, gold known."""

from __future__ import annotations

import re

from newscrawl.demo import build_network
from newscrawl.demo.layouts import render_article_page, render_index_page
from newscrawl.feeds import discover_feed_links

BASE = "http://127.0.0.1:9999"


def test_the_network_is_deterministic() -> None:
    assert build_network() == build_network()
    assert build_network(seed=1) != build_network()


def test_three_sites_with_several_categories_and_full_and_partial_groups() -> None:
    sites = build_network()
    assert len(sites) >= 3
    sizes = [len(site.articles_in(c)) for site in sites for c in site.categories]
    assert all(len(site.categories) >= 3 for site in sites)
    assert sum(size > 10 for size in sizes) >= 6
    assert sum(size < 10 for size in sizes) >= 3


def test_article_urls_are_unique_and_gold_text_has_several_paragraphs() -> None:
    for site in build_network():
        paths = [a.path for a in site.articles]
        assert len(paths) == len(set(paths))
        for article in site.articles:
            assert article.gold_text.count("\n\n") >= 4
            assert site.find_article(article.path) is article


def test_every_gold_paragraph_appears_once_in_its_page() -> None:
    for site in build_network():
        for article in site.articles[:5]:
            page = render_article_page(site, article, BASE)
            text = re.sub(r"<[^>]+>", "", page).replace("&#x27;", "'").replace("&quot;", '"')
            for paragraph in article.paragraphs:
                assert text.count(paragraph) == 1, (site.key, article.slug)


def test_the_three_templates_are_distinct() -> None:
    class_sets = []
    for site in build_network():
        page = render_article_page(site, site.articles[0], BASE)
        class_sets.append(set(re.findall(r'class="([^"]+)"', page)))
    for i, first in enumerate(class_sets):
        for second in class_sets[i + 1 :]:
            overlap = len(first & second) / len(first | second)
            assert overlap < 0.2


def test_pages_carry_noise_around_the_article() -> None:
    site = build_network()[0]
    page = render_article_page(site, site.articles[0], BASE)
    for marker in ("main-nav", "share-bar", "ad-inline", "teaser-summary", "comments", "footer"):
        assert marker in page


def test_home_page_announces_its_feeds() -> None:
    site = build_network()[1]
    links = discover_feed_links(render_index_page(site, BASE).encode(), BASE + "/")
    assert links == [BASE + "/rss.xml", BASE + "/atom.xml"]


def test_scale_multiplies_every_group() -> None:
    small, large = build_network()[0], build_network(scale=3)[0]
    for category in small.categories:
        assert len(large.articles_in(category)) == 3 * len(small.articles_in(category))
