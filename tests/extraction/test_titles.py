import pytest

from newscrawl.extraction import extract
from newscrawl.extraction.titles import plain_title

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
