"""The lede a page states in its description, on handwritten pages in several languages."""

from __future__ import annotations

from newscrawl.extraction import ExtractionConfig
from newscrawl.extraction.document import Document, parse_document
from newscrawl.extraction.stated_lede import add_stated_lede

CONFIG = ExtractionConfig()


def _page(header: str, body: list[str], after: str = "") -> str:
    paragraphs = "".join(f"<p>{text}</p>" for text in body)
    return f"""<html><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li></ul></nav>
<article><header><h1>Headline</h1>{header}<span class="byline">By A. Writer</span></header>
<div class="body">{paragraphs}</div></article>{after}
</body></html>"""


def _add(html: str, body: list[str], description: str | None) -> list[str]:
    """The texts kept after the rule, the scorer having kept exactly the `body` paragraphs."""
    document = parse_document(html)
    kept = [s.index for s in document.segments if s.text in body]
    assert len(kept) == len(body)
    added, texts = add_stated_lede(
        document,
        kept,
        [document.segments[i].text for i in kept],
        description,
        min_words=CONFIG.lede_min_words,
        min_share=CONFIG.lede_word_share,
    )
    assert texts == [document.segments[i].text for i in added]
    return texts


GERMAN_LEDE = (
    "In Coburg hat die Landessynode der evangelischen Kirche begonnen. Am ersten Sitzungstag "
    "haben auch Betroffene gesprochen."
)
GERMAN_BODY = [
    "Die Synode berät bis Donnerstag über den Haushalt und über die Aufarbeitung der Fälle.",
    "Der Landesbischof sagte, die Kirche habe zu lange weggesehen und müsse nun handeln.",
]


def test_a_doubted_lede_in_the_header_that_repeats_the_description_is_kept() -> None:
    html = _page(f'<p class="ArticleModuleTeaser_text">{GERMAN_LEDE}</p>', GERMAN_BODY)
    assert _add(html, GERMAN_BODY, GERMAN_LEDE) == [GERMAN_LEDE, *GERMAN_BODY]


def test_a_lede_that_differs_from_the_description_in_a_few_words_is_kept() -> None:
    lede = (
        "Le tribunal a condamné mardi l'ancien maire à deux ans de prison avec sursis pour "
        "favoritisme dans l'attribution des marchés publics de la ville."
    )
    description = lede.replace("mardi ", "") + " Il fait appel."
    body = [
        "L'enquête avait commencé en 2019 après le signalement d'un agent de la mairie.",
        "Son avocat a annoncé qu'il ferait appel de la décision dans les dix jours.",
    ]
    html = _page(f'<div class="standfirst">{lede}</div>', body)
    assert _add(html, body, description) == [lede, *body]


def test_a_description_cut_short_matches_the_start_of_a_longer_lede() -> None:
    lede = (
        "İzmir'in Bornova, Balıkesir'in Kepsut ve Samsun'un Kavak ilçelerinde yangın çıktı. "
        "Ekipler havadan ve karadan müdahale ediyor, iki mahalle boşaltıldı ve yedi ev hasar "
        "aldı."
    )
    description = lede[:90].rsplit(" ", 1)[0] + "..."
    body = [
        "Orman Genel Müdürlüğü, yangınların büyük bölümünün kontrol altına alındığını açıkladı.",
        "Bölgede rüzgarın hızı nedeniyle söndürme çalışmaları gece boyunca sürdü.",
    ]
    html = _page(f'<h2 class="spot">{lede}</h2>', body)
    assert _add(html, body, description) == [lede, *body]


def test_a_japanese_lede_counts_its_words_as_character_pairs() -> None:
    lede = (
        "宮崎県で最大震度五弱を観測した地震を受け、"
        "気象庁は南海トラフ地震との関連を調べる評価検討会を開いた。"
    )
    body = [
        "評価検討会は、今回の地震が南海トラフ地震の想定震源域で起きたことを確認した。",
        "気象庁は、巨大地震注意を発表する基準には達しなかったと説明した。",
    ]
    html = _page(f'<p class="lead">{lede}</p>', body)
    assert _add(html, body, lede) == [lede, *body]


def test_nothing_is_added_when_the_kept_text_already_holds_the_description() -> None:
    body = [GERMAN_LEDE, *GERMAN_BODY]
    html = _page(f'<p class="teaser">{GERMAN_LEDE}</p>', body)
    # The scorer kept the body's copy; the header's copy is the same lede again.
    document = parse_document(html)
    copies = [s.index for s in document.segments if s.text == GERMAN_LEDE]
    kept = [copies[1], *(s.index for s in document.segments if s.text in GERMAN_BODY)]
    texts = [document.segments[i].text for i in kept]
    assert add_stated_lede(document, kept, texts, GERMAN_LEDE, min_words=8, min_share=0.8) == (
        kept,
        texts,
    )


def test_a_copy_of_the_description_below_the_body_is_left_out() -> None:
    # A share box or a list of stories repeats the summary after the article: not its lede.
    html = _page("", GERMAN_BODY, after=f'<div class="share"><p>{GERMAN_LEDE}</p></div>')
    assert _add(html, GERMAN_BODY, GERMAN_LEDE) == GERMAN_BODY


def test_a_linked_teaser_of_the_story_is_no_lede() -> None:
    html = _page(f'<p class="kicker"><a href="/story">{GERMAN_LEDE}</a></p>', GERMAN_BODY)
    assert _add(html, GERMAN_BODY, GERMAN_LEDE) == GERMAN_BODY


def test_a_block_sharing_only_part_of_the_description_is_no_lede() -> None:
    other = (
        "Die Landessynode der evangelischen Kirche tagt jedes Jahr im Frühjahr und im Herbst "
        "an wechselnden Orten in ganz Bayern, zuletzt in Amberg und in Coburg."
    )
    html = _page(f"<p>{other}</p>", GERMAN_BODY)
    assert _add(html, GERMAN_BODY, GERMAN_LEDE) == GERMAN_BODY


def test_a_short_description_and_recognised_furniture_add_nothing() -> None:
    html = _page(f'<p class="lead">{GERMAN_LEDE}</p>', GERMAN_BODY)
    assert _add(html, GERMAN_BODY, "Synode in Coburg") == GERMAN_BODY
    assert _add(html, GERMAN_BODY, None) == GERMAN_BODY
    document = parse_document(html)
    lede = next(s.index for s in document.segments if s.text == GERMAN_LEDE)
    kept = [s.index for s in document.segments if s.text in GERMAN_BODY]
    texts = [document.segments[i].text for i in kept]
    assert add_stated_lede(
        document, kept, texts, GERMAN_LEDE, min_words=8, min_share=0.8, excluded={lede}
    ) == (kept, texts)


def test_the_rule_is_off_at_zero_words() -> None:
    html = _page(f'<p class="lead">{GERMAN_LEDE}</p>', GERMAN_BODY)
    document: Document = parse_document(html)
    kept = [s.index for s in document.segments if s.text in GERMAN_BODY]
    texts = [document.segments[i].text for i in kept]
    assert add_stated_lede(document, kept, texts, GERMAN_LEDE, min_words=0, min_share=0.8) == (
        kept,
        texts,
    )
