"""Page bytes are decoded as browsers do: BOM, HTTP charset, `<meta>` declaration, sniffing."""

from __future__ import annotations

from pathlib import Path

import lxml.etree
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from w3lib.encoding import html_to_unicode, to_unicode

from newscrawl.extraction import extract
from newscrawl.extraction.compiled_loops import is_pure_python_requested
from newscrawl.extraction.decoding import (
    decode_html,
    decode_html_as,
    html_encoding,
    is_clean_utf8,
    sniff_encoding,
)
from newscrawl.extraction.document import parse_document
from newscrawl.extraction.page_tree import parse_bounded_tree
from newscrawl.pipelines.page_items import decode_body

DATASETS = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets"
BODY = (
    "<body><div><p>It’s here: the café reopened on Monday after three years of work, and the"
    " owners say that the new menu will change every week of the season.</p></div></body>"
)


def test_non_ascii_text_before_the_meta_charset_is_read_in_that_charset() -> None:
    # libxml2 alone reads the title before it meets the declaration, as Latin-1.
    html = f'<html><head><title>It’s here</title><meta charset="utf-8"></head>{BODY}</html>'
    article = extract(html.encode("utf-8"))
    assert article.title == "It’s here"
    assert "It’s here: the café" in article.text


def test_bytes_and_text_give_the_same_article() -> None:
    html = f'<html><head><title>Café ’quotes’</title><meta charset="utf-8"></head>{BODY}</html>'
    assert extract(html.encode("utf-8")) == extract(html)


def test_a_byte_order_mark_beats_the_http_charset_and_the_declaration() -> None:
    html = f'<html><head><meta charset="iso-8859-1"></head>{BODY}</html>'
    body = b"\xef\xbb\xbf" + html.encode("utf-8")
    assert "It’s here: the café" in decode_html(body, "iso-8859-1")


def test_the_http_charset_beats_the_declaration() -> None:
    html = f'<html><head><title>Café</title><meta charset="utf-8"></head>{BODY}</html>'
    body = html.encode("cp1252")
    assert "It’s here: the café" in decode_html(body, "windows-1252")
    assert "It’s here: the café" in extract(body, encoding="windows-1252").text


def test_a_declaration_is_obeyed_without_an_http_charset() -> None:
    html = f'<html><head><title>Café</title><meta charset="windows-1252"></head>{BODY}</html>'
    article = extract(html.encode("cp1252"))
    assert article.title == "Café"
    assert "It’s here: the café" in article.text


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Привет, мир: сегодня в Москве прошёл снег, и дороги закрыты до вечера.", "cp1251"),
        ("今日は良い天気ですね。東京では桜が咲いています。明日も晴れるでしょう。", "shift_jis"),
        ("Le président a déclaré mercredi que la réforme était nécessaire. Naïve.", "cp1252"),
        ("Zażółć gęślą jaźń, powiedział premier w środę w Warszawie.", "cp1250"),
    ],
)
def test_an_undeclared_page_is_sniffed(text: str, encoding: str) -> None:
    body = f"<html><body><p>{text}</p></body></html>".encode(encoding)
    assert sniff_encoding(body) is not None
    assert text in decode_html(body)
    assert [segment.text for segment in parse_document(body).segments] == [text]


def test_an_undeclared_utf8_page_is_read_as_utf8() -> None:
    body = f"<html><head><title>Café</title></head>{BODY}</html>".encode()
    assert sniff_encoding(body) == "utf-8"
    assert "It’s here: the café" in extract(body).text


def test_the_crawl_decodes_a_body_whose_response_gave_no_charset() -> None:
    html = f'<html><head><title>It’s here</title><meta charset="utf-8"></head>{BODY}</html>'
    assert "<title>It’s here</title>" in decode_body(html.encode("utf-8"), None)
    assert "<title>It’s here</title>" in decode_body(html.encode("cp1252"), "cp1252")


def _dev_pages() -> list[Path]:
    return sorted(DATASETS.glob("*/html/*.html")) if DATASETS.is_dir() else []


@pytest.mark.skipif(not _dev_pages(), reason="the dev datasets are not in ../shared/datasets")
def test_every_dev_page_parses_the_same_from_bytes_and_from_text() -> None:
    # The dev pages are UTF-8 (datasets README). The same tree means the same article:
    # parse_document indexes the text of the tree parse_bounded_tree returns, so comparing the
    # trees alone spares the indexing walk (in pure Python, half this test's time).
    different = []
    for path in _dev_pages():
        body = path.read_bytes()
        from_bytes, _ = parse_bounded_tree(body)
        from_text, _ = parse_bounded_tree(body.decode("utf-8", errors="replace"))
        if lxml.etree.tostring(from_bytes) != lxml.etree.tostring(from_text):
            different.append(path.name)
    assert different == []


def test_an_xml_declaration_inside_the_page_declares_nothing() -> None:
    # A pasted fragment's declaration: browsers follow the page's own <meta>, or sniff.
    fragment = '<?xml version="1.0" encoding="iso-8859-1"?>'
    declared = f'<html><head>{fragment}<meta charset="utf-8"></head>{BODY}</html>'
    undeclared = f"<html><head></head>{fragment}{BODY}</html>"
    assert "It’s here: the café" in decode_html(declared.encode("utf-8"))
    assert "It’s here: the café" in decode_html(undeclared.encode("utf-8"))


def test_an_xml_declaration_at_the_start_declares_the_page() -> None:
    html = f'<?xml version="1.0" encoding="iso-8859-1"?><html>{BODY.replace("’", "")}</html>'
    assert "the café reopened" in decode_html(html.encode("latin-1"))


@pytest.mark.parametrize(
    ("declaration", "encoding"),
    [
        ('<?xml version="1.0" encoding="iso-8859-1"?>', "cp1252"),
        # Unclosed, running into the next tag (a real page's): lxml refuses such text as a str.
        (
            '<?xml version="1.0" encoding="utf-8, keywords, more\n<meta name="x" content="y" />',
            "utf-8",
        ),
    ],
)
def test_text_that_starts_with_an_xml_declaration_is_parsed(
    declaration: str, encoding: str
) -> None:
    html = f"{declaration}<html><head><title>Café</title></head>{BODY}</html>"
    for page in (html, html.encode(encoding)):
        texts = [segment.text for segment in parse_document(page).segments]
        assert any("It’s here: the café reopened" in text for text in texts), page


# "Südtiroler Ärzte" as some editors store it: each umlaut a base letter and a combining mark.
DECOMPOSED = "Su\u0308dtiroler A\u0308rzte feiern das Jubila\u0308um"
COMPOSED = "Südtiroler Ärzte feiern das Jubiläum"


@pytest.mark.parametrize("as_bytes", [True, False])
def test_decomposed_letters_come_out_composed(as_bytes: bool) -> None:
    # A browser shows both forms alike; word runs and counts stop at a combining mark.
    sentence = f"{DECOMPOSED} in Klausen, wo die Mitglieder am Montag zusammenkamen und feierten."
    html = (
        f'<html><head><meta charset="utf-8"><title>{DECOMPOSED}</title></head>'
        f"<body><article><h1>{DECOMPOSED}</h1><p>{sentence}</p></article></body></html>"
    )
    article = extract(html.encode("utf-8") if as_bytes else html, title=DECOMPOSED)
    assert article.title == COMPOSED
    assert f"{COMPOSED} in Klausen" in article.text
    assert "\u0308" not in article.text


def test_decomposed_letters_in_a_single_byte_charset_page_come_out_composed() -> None:
    # windows-1258 (Vietnamese) writes tones as combining marks: "Hà Nội" as "Ha" + U+0300 ...
    text = "Ha\u0300 N\u00f4\u0323i"
    sentence = f"{text}: the city had heavy rain across all its districts today."
    html = f"<html><body><p>{sentence}</p></body></html>"
    article = extract(html.encode("windows-1258"), encoding="windows-1258")
    assert "Hà Nội" in article.text


_ENCODING_CASES = [
    (b"\xef\xbb\xbf" + BODY.encode("utf-8"), "iso-8859-1"),  # a BOM beats the HTTP charset
    (b"\xff\xfe" + BODY.encode("utf-16-le"), None),
    (BODY.encode("cp1252"), "windows-1252"),
    (f'<meta charset="windows-1252">{BODY}'.encode("cp1252"), None),
    (f'<meta charset="utf-16">{BODY}'.encode("utf-16-be"), None),
    (f"<?xml version='1.0' encoding='utf-8'?>{BODY}".encode(), None),
    (f"<p>x</p><?xml version='1.0' encoding='iso-8859-1'?>{BODY}".encode(), None),
    (BODY.encode("utf-8"), None),  # undeclared: sniffed
    (BODY.encode("cp1252"), None),
    (b"", None),
]


@pytest.mark.parametrize(("body", "http_encoding"), _ENCODING_CASES)
def test_the_encoding_is_w3libs_choice_found_without_decoding(
    body: bytes, http_encoding: str | None
) -> None:
    encoding, skipped = html_encoding(body, http_encoding)
    content_type = f"text/html; charset={http_encoding}" if http_encoding else None
    # What decode_html_as did before it chose the encoding itself (its inner declarations
    # aside: the pasted fragment case is the caller's, `_declaration_outside_fragments`).
    if b"<?xml" not in body[1:]:
        expected = html_to_unicode(
            content_type, body, default_encoding="cp1252", auto_detect_fun=sniff_encoding
        )
        assert (encoding, body[skipped:].decode(encoding, "replace")) == expected
    assert decode_html_as(body, http_encoding) == (encoding, to_unicode(body[skipped:], encoding))


_UTF8_PARTS = [
    b"a", b"<p>", b"\xc3\xa9", b"\xe2\x80\x99", b"\xf0\x9f\x98\x80", b"\xef\xbf\xbd",
    b"\xef\xbf\xbe", b"\xed\x9f\xbf", b"\xed\xa0\x80", b"\xc0\xaf", b"\xe0\x80\xaf",
    b"\xf0\x8f\xbf\xbf", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5", b"\xff", b"\x80",
    b"\xc3", b"\xe2\x80", b"\xf0\x9f\x98", b"abcdefgh" * 3,
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_UTF8_PARTS), max_size=12), st.integers(0, 6))
def test_clean_utf8_is_what_decodes_without_a_replacement_character(
    parts: list[bytes], start: int
) -> None:
    body = b"".join(parts)
    start = min(start, len(body))
    expected = "\ufffd" not in body[start:].decode("utf-8", "replace")
    assert is_clean_utf8(body, start) == expected
    if not is_pure_python_requested():
        from newscrawl.extraction._block_rows import is_clean_utf8 as compiled

        assert compiled(body, start) == expected
