"""Site and category from URLs."""

from __future__ import annotations

import pytest

from newscrawl.categories import DEFAULT_CATEGORY, category_from_url, site_from_url


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("https://www.Example.com/a/b.html", "example.com"),
        ("https://news.example.com/", "news.example.com"),
        ("http://127.0.0.1:8701/world/x.html", "127.0.0.1:8701"),
        ("http://www.example.com:8080/", "example.com:8080"),
    ],
)
def test_site_is_the_host_without_www(url: str, site: str) -> None:
    assert site_from_url(url) == site


@pytest.mark.parametrize(
    ("url", "segment", "category"),
    [
        ("https://x.example/World/story.html", 0, "world"),
        ("https://x.example/sport/football/match.html", 1, "football"),
        ("https://x.example/2026/11/22/politics/vote.html", 0, "politics"),
        ("https://x.example/story.html", 0, DEFAULT_CATEGORY),
        ("https://x.example/sport/match.html", 3, DEFAULT_CATEGORY),
        ("https://x.example/", 0, DEFAULT_CATEGORY),
        # A slug written as a directory is still the slug, never the category.
        ("http://nypost.com/2017/10/20/tourist-killed-in-famous-church/", 0, DEFAULT_CATEGORY),
        ("https://x.example/world/2017/10/20/tourist-killed/", 0, "world"),
        ("https://x.example/world/europe/tourist-killed//", 1, "europe"),
        ("https://x.example/world/europe/tourist-killed//", 2, DEFAULT_CATEGORY),
    ],
)
def test_category_is_a_directory_of_the_path(url: str, segment: int, category: str) -> None:
    assert category_from_url(url, segment) == category
