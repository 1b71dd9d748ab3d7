import pytest

from newscrawl.extraction import extract
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
