import json

import lxml.html
import pytest

from newscrawl.extraction import extract
from newscrawl.extraction.metadata import extract_metadata
from newscrawl.extraction.titles import plain_title, strip_title_furniture

_PAGE = (
    "<html><head><title>Page</title></head><body><article><h1>Page headline</h1><p>"
    + "Some words of the story, told at length for the extractor. " * 20
    + "</p></article></body></html>"
)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Q&amp;A: Something", "Q&A: Something"),
        ("It&#8217;s here", "It\u2019s here"),
        ("AT&amp;amp;T", "AT&amp;T"),  # unescaped once: the rest is the publisher's text
        ("&lt;i&gt;Italic&lt;/i&gt; news", "Italic news"),
        ("<b>Bold</b>  title\n", "Bold title"),
        ("3 < 5 and 7 > 6", "3 < 5 and 7 > 6"),
        ("Plain title", "Plain title"),
    ],
)
def test_plain_title(given: str, expected: str) -> None:
    assert plain_title(given) == expected


def test_extract_stores_the_feed_title_as_plain_text() -> None:
    article = extract(_PAGE, title="Q&amp;A: It&#8217;s &lt;i&gt;here&lt;/i&gt;")
    assert article.title == "Q&A: It\u2019s here"


@pytest.mark.parametrize(
    ("headline", "expected"),
    [
        ("Steigende US-Zinsen setzen Dax zu | Börsen-Zeitung",
         "Steigende US-Zinsen setzen Dax zu"),
        ("Post-Vac-Syndrom: Was wissen wir? – DW – 13.06.2023",
         "Post-Vac-Syndrom: Was wissen wir?"),
        ("Russia hits Kyiv with missile - National | Globalnews.ca",
         "Russia hits Kyiv with missile"),
        ("南海トラフ、一時調査 巨大地震、基準達せず：中日新聞Web",
         "南海トラフ、一時調査 巨大地震、基準達せず"),
        ("Vierschanzentournee | Beleidigen und beschuldigen: Zoff ums Material",
         "Beleidigen und beschuldigen: Zoff ums Material"),
        # A long or lower-case tail is part of the headline, and a short headline stays whole.
        ("Your bill could be worth THOUSANDS - here's how to check",
         "Your bill could be worth THOUSANDS - here's how to check"),
        ("Brexit | BBC", "Brexit | BBC"),
    ],
)
def test_strip_title_furniture(headline: str, expected: str) -> None:
    assert strip_title_furniture(headline) == expected


def headline_of(head: str, body: str = "") -> str | None:
    page = f"<html><head>{head}</head><body>{body}<p>Text.</p></body></html>"
    return extract_metadata(lxml.html.document_fromstring(page), None).title


@pytest.mark.parametrize(
    ("title", "og_title", "h1", "expected"),
    [
        # The h1 fuses a kicker to the headline the publisher declares.
        ("Kultur : Ehrengast der Buchmesse | der Freitag", "Ehrengast der Buchmesse",
         "Kultur : Ehrengast der Buchmesse", "Ehrengast der Buchmesse"),
        # <title> is an SEO rewrite; og:title is the editorial headline.
        ("Harry and Meghan LIVE: Couple won't recover | Royal | Express",
         "Whingers Harry and Meghan won't recover from snub", "Harry and Meghan LIVE",
         "Whingers Harry and Meghan won't recover from snub"),
        # A generic og:title shares no word with the page: the h1 echoed in <title> stands.
        ("Flood closes the bridge | Gazette", "Latest news and sport", "Flood closes the bridge",
         "Flood closes the bridge"),
        ("Inondation : le pont fermé - Le Journal", "Inondation : le pont fermé - Le Journal",
         "Inondation : le pont fermé", "Inondation : le pont fermé"),
    ],
)
def test_declared_headline_without_a_feed_title(
    title: str, og_title: str, h1: str, expected: str
) -> None:
    head = (f"<title>{title}</title><meta property='og:title' content=\"{og_title}\">"
            "<meta property='og:site_name' content='Le Journal'>")
    assert headline_of(head, f"<h1>{h1}</h1>") == expected


def test_og_title_copied_from_the_page_title_yields_to_the_jsonld_headline() -> None:
    headline = "Newborns left in dustbins: Madhya Pradesh tops India for 5th year"
    seo = f"Infant Abandonment Cases: {headline} | Bhopal News - The Times of India"
    data = json.dumps({"@type": "NewsArticle", "headline": headline})
    head = (f"<title>{seo}</title><meta property='og:title' content='{seo}'>"
            f'<script type="application/ld+json">{data}</script>')
    assert headline_of(head) == headline


def test_headline_shown_as_h1_and_declared_in_jsonld_wins_over_a_social_og_title() -> None:
    headline = "US Open 2023 results: Andy Murray among six British players to win"
    data = json.dumps({"@type": "NewsArticle", "headline": headline.replace("'", "&#8217;")})
    head = (f"<title>{headline}</title>"
            "<meta property='og:title' content='16-0! All six British players win at US Open'>"
            f'<script type="application/ld+json">{data}</script>')
    assert headline_of(head, f"<h1>{headline}</h1>") == headline


def test_h1_spelling_with_curly_quotes_is_kept_when_the_declared_headline_is_the_same() -> None:
    head = ("<title>x</title><meta property='og:title' "
            "content=\"Mexico to fight 'illogical' steel tariffs\">")
    h1 = "Mexico to fight \u2018illogical\u2019 steel tariffs"
    assert headline_of(head, f"<h1>{h1}</h1>") == h1
