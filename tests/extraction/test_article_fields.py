"""Description, site name, tags and modified date on handwritten pages in several languages."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from newscrawl.extraction import Article, extract
from newscrawl.extraction.article_tags import find_tags
from newscrawl.extraction.descriptions import clean_description, first_paragraph

PAGES = Path(__file__).parent / "fixtures" / "article_fields"


def extract_page(name: str) -> Article:
    return extract((PAGES / name).read_bytes(), url=f"https://news.example/{name[:-5]}/story")


def test_german_page_with_open_graph_fields() -> None:
    article = extract_page("de_berlin.html")
    berlin = timezone(timedelta(hours=2))
    assert article.description == (
        "Nach vier Jahren Bauzeit ist die Fußgängerbrücke zwischen Kreuzberg und "
        "Friedrichshain fertig."
    )
    assert article.site_name == "Spreebote"
    # article:tag first, then the keywords list; "berlin" repeats "Berlin", the site is no tag.
    assert article.tags == ["Verkehr", "Berlin", "Brücke", "Spree"]
    assert article.published == datetime(2024, 6, 3, 10, 20, tzinfo=berlin)
    assert article.modified == datetime(2024, 6, 3, 14, 5, tzinfo=berlin)


def test_french_page_with_json_ld_fields() -> None:
    article = extract_page("fr_lyon.html")
    paris = timezone(timedelta(hours=1))
    assert article.description == (
        "La fête des Lumières a battu son record de fréquentation & de ventes."
    )
    assert article.site_name == "Le Petit Rhodanien"
    assert article.tags == ["Lyon", "Culture", "Fête des Lumières"]
    assert article.modified == datetime(2023, 12, 11, 9, 0, tzinfo=paris)


def test_japanese_page_with_plain_meta_tags() -> None:
    article = extract_page("ja_tokyo.html")
    assert article.description == "気象庁は東京都心で桜が満開になったと発表した。平年より5日早い。"
    assert article.site_name == "東都新聞"
    assert article.tags == ["桜", "東京", "気象庁"]
    assert article.modified is None
    assert article.published == datetime(2024, 3, 29, 11, 30, tzinfo=timezone(timedelta(hours=9)))


def test_spanish_page_without_a_summary_takes_the_first_paragraph() -> None:
    article = extract_page("es_madrid.html")
    # The kicker "Transporte" is too short to be the lede.
    assert article.description is not None
    assert article.description.startswith("El metro de Madrid abrirá una hora más")
    assert article.tags == ["Metro", "Madrid", "Transporte"]
    assert article.site_name is None
    # No offset on the page: the local time stays naive.
    assert article.published == datetime(2024, 7, 1, 9, 15)


def test_tags_drop_ids_numbers_and_overlong_entries() -> None:
    metas = {"article:tag": ["26157981-b4f7-4929-adc1-e860c6f03636", "2024", "Wahl"],
             "keywords": ["wahl, " + "x" * 90]}
    assert find_tags(metas, [{"keywords": "Politik,Wahl"}]) == ["Wahl", "Politik"]


@pytest.mark.parametrize(
    ("paragraphs", "expected"),
    [
        (["Headline", "Short kicker", "A first paragraph that is long enough to be a lede."],
         "A first paragraph that is long enough to be a lede."),
        (["Headline"], None),
        ([], None),
    ],
)
def test_first_paragraph(paragraphs: list[str], expected: str | None) -> None:
    assert first_paragraph(paragraphs, "Headline") == expected


def test_long_descriptions_are_cut_at_a_word() -> None:
    cut = clean_description("word " * 400)
    assert cut is not None and len(cut) <= 1001 and cut.endswith("word\u2026")


def test_the_page_headline_is_kept_beside_a_differing_feed_title() -> None:
    page = (PAGES / "de_berlin.html").read_bytes()
    url = "https://news.example/de_berlin/story"
    own = extract(page, url=url)
    assert own.title and own.page_headline is None
    fed = extract(page, url=url, title="Brücke offen &amp; fertig")
    assert fed.title == "Brücke offen & fertig"
    assert fed.page_headline == own.title
    # A feed title that is the page's headline in other case is not stored twice.
    assert extract(page, url=url, title=own.title.upper()).page_headline is None
