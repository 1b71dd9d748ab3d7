"""`newscrawl extract` through the CLI entry point, including pages in legacy encodings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from newscrawl.cli import main
from tests.evaluation.generated_dataset import STORIES, render_page
from tests.extraction.safety_checks import assert_safe_html


def write_site(folder: Path) -> list[Path]:
    paths = []
    for slug, (title, paragraphs) in STORIES.items():
        path = folder / f"{slug}.html"
        path.write_text(render_page("valley-times", title, paragraphs), encoding="utf-8")
        paths.append(path)
    return paths


def test_extract_text_in_single_page_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = write_site(tmp_path)[0]
    assert main(["extract", str(page)]) == 0
    out = capsys.readouterr().out
    assert "The harbour reopened on Monday" in out
    assert "repairs were finished" in out


def test_extract_json_with_neighbours(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page, *neighbours = write_site(tmp_path)
    status = main(
        ["extract", str(page), "--neighbours", *map(str, neighbours), "--format", "json",
         "--title", "Harbour reopens after storm", "--url", "https://valley.example/2024/05/06/h"]
    )
    assert status == 0
    article = json.loads(capsys.readouterr().out)
    assert article["method"] == "neighbours"
    assert "three piers" in article["text"]
    assert "voice of the valley" not in article["text"]  # the static banner
    assert article["title"] == "Harbour reopens after storm"
    assert article["published"].startswith("2024-05-06")
    assert_safe_html(article["html"])


def test_extract_html_is_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    paragraph = (
        "<p onclick='x()'>A long enough paragraph of article text with a "
        "<a href='javascript:alert(1)'>bad link</a> in it, and more words so that it reads "
        "as the content of a real news story about the council meeting last night.</p>"
    )
    page.write_text(
        f"<html><body><article><h1>Title of the story</h1>{paragraph * 4}"
        "<script>alert(1)</script><img src=x onerror=alert(1)></article></body></html>",
        encoding="utf-8",
    )
    assert main(["extract", str(page), "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert "paragraph of article text" in html
    assert_safe_html(html)


RUSSIAN = (
    "Выборы в городе",
    "Правительство заявило во вторник, что не будет менять закон о выборах в этом году.",
)
# Further, distinct paragraphs, so that the page reads like an article and not a stub.
FILLER = {
    "ru": ["Оппозиция потребовала провести голосование, но депутаты не смогли договориться.",
           "По словам министра, новые правила вступят в силу только после обсуждения."],
    "de": ["Die Anwohner haben eine Petition gestartet, die schon viele Menschen unterschrieben.",
           "Der Bürgermeister will die Pläne in der nächsten Sitzung des Rates vorstellen."],
    "ja": ["野党各党はこの決定を厳しく批判し、"
           "選挙制度の見直しは避けられない課題だと主張しています。",
           "総務省によると、前回の選挙では投票率が過去最低を記録し、"
           "若い世代の政治離れが目立ちました。"],
}
FILLER_LANGUAGE = {"windows-1251": "ru", "koi8-r": "ru", "shift_jis": "ja"}


@pytest.mark.parametrize(
    ("encoding", "declaration", "headline", "text"),
    [
        ("windows-1251", '<meta charset="windows-1251">', *RUSSIAN),
        ("windows-1251",
         '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">', *RUSSIAN),
        ("koi8-r", '<meta charset="koi8-r">', *RUSSIAN),
        ("shift_jis", '<meta charset="Shift_JIS">', "選挙法の改正はなし",
         "政府は火曜日、今年は選挙法を変更しないと発表しました。与党内には改正を求める声も"
         "ありましたが、首相は慎重な姿勢を崩しませんでした。"),
        ("utf-8-sig", "", "Straßenbau in Köln",
         "Die Stadt hat am Dienstag erklärt, dass die Größe der Baustelle zu Ärger über die "
         "Straße geführt hat, und die Anwohner fordern nun eine schnellere Lösung."),
        # No declaration at all: UTF-8 is the only sane reading, not libxml2's Latin-1.
        ("utf-8", "", "Straßenbau in Köln",
         "Die Stadt hat am Dienstag erklärt, dass die Größe der Baustelle zu Ärger über die "
         "Straße geführt hat, und die Anwohner fordern nun eine schnellere Lösung."),
    ],
)
def test_extract_reads_the_declared_encoding(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    encoding: str,
    declaration: str,
    headline: str,
    text: str,
) -> None:
    page = tmp_path / "page.html"
    filler = FILLER[FILLER_LANGUAGE.get(encoding, "de")]
    body = "".join(f"<p>{paragraph}</p>" for paragraph in [text, *filler])
    html = (
        f"<html><head>{declaration}<title>{headline}</title></head><body><h1>{headline}</h1>"
        f"<div>{body}</div></body></html>"
    )
    page.write_bytes(html.encode(encoding))
    assert main(["extract", str(page), "--format", "json"]) == 0
    article = json.loads(capsys.readouterr().out)
    assert article["title"] == headline
    # Every paragraph, also in scripts without spaces between words (Japanese).
    assert article["text"].split("\n\n")[1:] == [text, *filler]


def test_extract_reports_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(tmp_path / "missing.html")]) == 2
    assert "missing.html" in capsys.readouterr().err


def test_extract_reads_text_before_a_late_charset_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # libxml2 alone reads what precedes the <meta charset> as Latin-1: "Itâ€™s here".
    page = tmp_path / "page.html"
    body = "".join(f"<p>{paragraph}</p>" for paragraph in FILLER["de"])
    html = (
        '<html><head><title>It’s here</title><meta charset="utf-8"></head>'
        f"<body><h1>It’s here</h1><div>{body}</div></body></html>"
    )
    page.write_bytes(html.encode("utf-8"))
    assert main(["extract", str(page), "--format", "json"]) == 0
    article = json.loads(capsys.readouterr().out)
    assert article["title"] == "It’s here"
    assert article["text"].split("\n\n")[1:] == FILLER["de"]


def test_extract_json_shows_the_article_fields(capsys: pytest.CaptureFixture[str]) -> None:
    fixtures = Path(__file__).parents[1] / "extraction" / "fixtures"
    page = fixtures / "article_fields" / "de_berlin.html"
    assert main(["extract", str(page), "--format", "json", "--url", "https://spree.example/a"]) == 0
    article = json.loads(capsys.readouterr().out)
    assert article["site_name"] == "Spreebote"
    assert article["tags"] == ["Verkehr", "Berlin", "Brücke", "Spree"]
    assert article["description"].startswith("Nach vier Jahren Bauzeit")
    assert article["published"] == "2024-06-03T10:20:00+02:00"
    assert article["modified"] == "2024-06-03T14:05:00+02:00"
