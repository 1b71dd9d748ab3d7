"""Small generated news pages: one layout per site, with menus, footer and related links."""

from __future__ import annotations

from datetime import UTC, datetime

from newscrawl.items import PageItem

WORDS = [
    "harbour", "council", "budget", "river", "station", "bridge", "school", "museum",
    "festival", "market", "election", "weather", "railway", "library", "stadium", "forest",
    "hospital", "airport", "garden", "theatre",
]

MENU = "".join(f'<li><a href="/{name}/">{name.title()} section</a></li>' for name in WORDS[:8])


def build_story(number: int, sentences: int = 6) -> list[str]:
    """Deterministic paragraphs, different for every story number."""
    paragraphs = []
    for index in range(sentences):
        picked = [WORDS[(number * 7 + index * 3 + k) % len(WORDS)] for k in range(12)]
        paragraphs.append(
            f"Story {number} paragraph {index} reports that the " + " and the ".join(picked) + "."
        )
    return paragraphs


def build_page_html(site: str, category: str, number: int) -> str:
    """A page of `site` whose layout repeats on every page of the site."""
    story = "".join(f"<p>{text}</p>" for text in build_story(number))
    related = "".join(
        f'<li><a href="/{category}/story-{number + k}.html">Story {number + k}</a></li>'
        for k in range(1, 4)
    )
    return (
        f"<html lang='en'><head><title>Headline number {number} | {site}</title></head><body>"
        f"<header><div class='brand'>{site} daily news portal</div><nav><ul>{MENU}</ul></nav>"
        "</header>"
        f"<main><article><h1>Headline number {number}</h1>{story}</article>"
        f"<aside><h3>Related</h3><ul>{related}</ul></aside></main>"
        "<footer><p>Copyright the daily news portal company, all rights reserved worldwide.</p>"
        "<p>Contact us about advertising, careers, and the privacy policy of this site.</p>"
        "</footer></body></html>"
    )


def build_page_item(site: str, category: str, number: int) -> PageItem:
    """A PageItem as the spiders yield it."""
    return PageItem(
        url=f"http://{site}/{category}/story-{number}.html",
        site=site,
        category=category,
        body=build_page_html(site, category, number).encode("utf-8"),
        encoding="utf-8",
        title=f"Headline number {number}",
        feed_url=f"http://{site}/{category}/rss.xml",
        published=datetime(2026, 11, 1, 12, tzinfo=UTC),
        authors=["Desk Reporter"],
        fetched_at=datetime(2026, 11, 2, 9, tzinfo=UTC),
    )
