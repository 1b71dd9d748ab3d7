"""Golden author tests over small handwritten pages in several languages."""

import json

import lxml.html
import pytest

from newscrawl.extraction.metadata import extract_metadata


def authors_of(head: str = "", body: str = "", lang: str = "en") -> list[str]:
    page = f'<html lang="{lang}"><head>{head}</head><body>{body}<p>Text.</p></body></html>'
    return extract_metadata(lxml.html.document_fromstring(page), None).authors


def jsonld(author: object) -> str:
    data = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "H",
            "author": author}
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_agency_in_jsonld_wins_over_interface_text() -> None:
    body = ('<div class="author-box"><a href="/a">View author archive</a></div>'
            '<p class="byline">By Associated Press</p>')
    assert authors_of(jsonld(["Associated Press"]), body) == ["Associated Press"]


def test_visible_person_byline_wins_over_an_organisation_in_jsonld() -> None:
    head = jsonld({"@type": "Organization", "name": "Deutsche Welle (www.dw.com)"})
    body = '<div class="author">Julia Vergin und Clare Roth</div>'
    assert authors_of(head, body, "de") == ["Julia Vergin", "Clare Roth"]


def test_organisation_in_jsonld_is_the_author_without_a_person() -> None:
    head = ('<meta property="og:site_name" content="DER SPIEGEL">'
            + jsonld({"@type": "Organization", "name": "DER SPIEGEL"}))
    assert authors_of(head, lang="de") == ["DER SPIEGEL"]


def test_agency_byline_is_kept_in_the_page_form() -> None:
    assert authors_of(body='<span class="byline">Von dpa</span>', lang="de") == ["dpa"]


def test_jsonld_people_are_cleaned_of_initials_and_outlets() -> None:
    head = jsonld([{"@type": "Person", "name": "Elena Oberholzer (obe)"},
                   {"@type": "Person", "name": "Finian Cunningham. Sputnik International"}])
    assert authors_of(head, lang="de") == ["Elena Oberholzer", "Finian Cunningham"]


@pytest.mark.parametrize(
    ("byline", "lang", "expected"),
    [
        ("Par Marie Dupont et Jean Martin", "fr", ["Marie Dupont", "Jean Martin"]),
        ("Por Ana García y Luis Pérez", "es", ["Ana García", "Luis Pérez"]),
        ("Di Viviana Mazza", "it", ["Viviana Mazza"]),
        ("Av Ingrid Treborg og Marlene Lundberg Holm", "no",
         ["Ingrid Treborg", "Marlene Lundberg Holm"]),
        ("Текст: Ярослав Кузишин", "ru", ["Ярослав Кузишин"]),
        ("신현주 기자", "ko", ["신현주"]),
    ],
)
def test_byline_prefixes_and_suffixes_by_language(
    byline: str, lang: str, expected: list[str]
) -> None:
    assert authors_of(body=f'<div class="byline">{byline}</div>', lang=lang) == expected


@pytest.mark.parametrize(
    "junk",
    [
        "(Image: Getty Images)",
        "Sie haben einen Fehler gefunden?",
        "View author archive",
        "only@example.com",
    ],
)
def test_junk_bylines_give_no_author(junk: str) -> None:
    assert authors_of(body=f'<div class="byline">{junk}</div>') == []


def test_agency_organisation_beside_a_person_in_jsonld_is_kept() -> None:
    head = jsonld([{"@type": "Person", "name": "Paula Steiger"},
                   {"@type": "Organization", "name": "SDA"}])
    assert authors_of(head, lang="de") == ["Paula Steiger", "SDA"]


def test_publication_named_as_the_author_is_returned_without_a_person() -> None:
    head = ('<meta property="og:site_name" content="Euronews">'
            + jsonld({"@type": "Person", "name": "Euronews"}))
    assert authors_of(head) == ["Euronews"]


def test_site_name_with_its_address_is_no_author() -> None:
    head = '<meta name="author" content="Deutsche Welle (www.dw.com)">'
    assert authors_of(head, lang="de") == []


@pytest.mark.parametrize(
    ("byline", "lang", "expected"),
    [
        ("By MND Staff", "en", ["MND Staff"]),
        ("Von BR24 Redaktion", "de", ["BR24 Redaktion"]),
        ("Scott Gilbertson, Gear Team", "en", ["Scott Gilbertson", "Gear Team"]),
        ("Por Redacción Deportes", "es", ["Redacción Deportes"]),
        ("Staff Reporter", "en", []),
    ],
)
def test_desk_bylines_are_kept_as_the_page_gives_them(
    byline: str, lang: str, expected: list[str]
) -> None:
    assert authors_of(body=f'<div class="byline">{byline}</div>', lang=lang) == expected


@pytest.mark.parametrize(
    "company", ["Nikkei Inc.", "Axel Springer SE AG", "Condé Nast Verlag GmbH"]
)
def test_company_names_are_no_authors(company: str) -> None:
    assert authors_of(body=f'<a class="author" href="/about">{company}</a>') == []


def test_nested_jsonld_author_lists_are_read() -> None:
    head = jsonld([{"@type": "Person", "name": "Engin Haupt"},
                   [{"@type": "Person", "name": "MDR SACHSEN-ANHALT"}]])
    assert authors_of(head, lang="de") == ["Engin Haupt", "MDR SACHSEN-ANHALT"]


def test_publication_listed_beside_a_person_in_jsonld_is_kept() -> None:
    head = ('<meta property="og:site_name" content="t-online">'
            + jsonld([{"@type": "Person", "name": "Julian Seiferth"},
                      {"@type": "Organization", "name": "t-online"}]))
    assert authors_of(head, lang="de") == ["Julian Seiferth", "t-online"]


@pytest.mark.parametrize(
    ("label", "lang"), [("Written by", "en"), ("Verfasst von", "de"), ("Escrito por", "es")]
)
def test_yoast_written_by_label_names_the_writer_behind_an_email(label: str, lang: str) -> None:
    head = ('<meta name="author" content="a.sleegers@example.com">'
            f'<meta name="twitter:label1" content="{label}">'
            '<meta name="twitter:data1" content="Anna Sleegers">'
            '<meta name="twitter:label2" content="Est. reading time">'
            '<meta name="twitter:data2" content="3 minutes">')
    assert authors_of(head, lang=lang) == ["Anna Sleegers"]


def test_cms_account_author_is_ignored() -> None:
    head = jsonld({"@id": "https://example.co.za/author/admin/", "name": "Ilanga D"})
    body = ('<span class="author vcard"><a rel="author" href="https://example.co.za/author/admin/">'
            'Ilanga D</a></span>')
    assert authors_of(head, body, "zu") == []


def test_byline_naming_the_publication_stops_the_search() -> None:
    head = ('<meta property="og:site_name" content="Dizindaba">'
            + jsonld({"name": "Dizindaba"}))
    body = ('<span class="cm-author">Dizindaba</span>'
            '<ul><li><span class="cm-author">Anetta Mangxaba</span> Another story</li></ul>')
    assert authors_of(head, body, "xh") == ["Dizindaba"]


def test_source_credit_does_not_replace_the_structured_author() -> None:
    head = ('<meta property="og:site_name" content="sportschau.de">'
            + jsonld({"@type": "Organization", "name": "sportschau.de"}))
    body = '<div class="backlink__author">Quelle: sid/dpa</div>'
    assert authors_of(head, body, "de") == ["sportschau.de"]


def test_visible_byline_adds_coauthors_the_jsonld_leaves_out() -> None:
    head = jsonld([{"@type": "Person", "name": "Marlene Lundberg Holm"}])
    body = ('<div class="bylines">'
            '<div class="byline"><address><a rel="author" href="mailto:i@db.no">Ingrid Treborg</a>'
            '</address></div>'
            '<div class="byline"><address><a rel="author" href="mailto:m@db.no">'
            'Marlene Lundberg Holm</a></address></div></div>'
            '<aside><a rel="author" href="/x">Other Writer</a></aside>')
    assert authors_of(head, body, "no") == ["Ingrid Treborg", "Marlene Lundberg Holm"]


def test_jsonld_wins_when_the_visible_byline_disagrees() -> None:
    head = jsonld([{"@type": "Person", "name": "Jakob Hartung"}])
    body = '<div class="byline"><a rel="author" href="/a">Jakob Hartung</a></div>' \
        '<ul class="teasers"><li><a rel="author" href="/b">Patrick Diekmann</a></li></ul>'
    assert authors_of(head, body, "de") == ["Jakob Hartung"]


@pytest.mark.parametrize(
    ("byline", "lang", "expected"),
    [
        ("Mamokete Modiba, Claire Benit-Gbaffou, Sarah Charlton and Tanya Zack", "en",
         ["Mamokete Modiba", "Claire Benit-Gbaffou", "Sarah Charlton", "Tanya Zack"]),
        ("Von Jasper Riemann und Barbara Schneider", "de", ["Jasper Riemann", "Barbara Schneider"]),
        ("Door Jan de Vries en Piet Jansen", "nl", ["Jan de Vries", "Piet Jansen"]),
        ("Av Anna Svensson och Erik Berg", "sv", ["Anna Svensson", "Erik Berg"]),
        ("Ярослав Кузишин и Антон Зелинский", "ru", ["Ярослав Кузишин", "Антон Зелинский"]),
        ("Ayşe Yılmaz ve Mehmet Demir", "tr", ["Ayşe Yılmaz", "Mehmet Demir"]),
        ("Di Luca Monaco e Viviana Mazza", "it", ["Luca Monaco", "Viviana Mazza"]),
        # A middle initial is no conjunction; a role with "ir" (and) in it is no second name.
        ("By Andrew E. Freedman", "en", ["Andrew E. Freedman"]),
        ("Povilas Aleksandravičius, Mykolo Romerio universiteto Žmogaus ir visuomenės studijų "
         "fakulteto profesorius", "lt", ["Povilas Aleksandravičius"]),
        ("BY HEMMY SO in Los Angeles and BEN WIDDICOMBE, LARRY McSHANE and RICH SCHAPIRO", "en",
         ["HEMMY SO", "BEN WIDDICOMBE", "LARRY McSHANE", "RICH SCHAPIRO"]),
    ],
)
def test_several_authors_are_split_in_each_language(
    byline: str, lang: str, expected: list[str]
) -> None:
    assert authors_of(body=f'<div class="byline">{byline}</div>', lang=lang) == expected
