"""Language: the declared `<html lang>` first, else the small stop-word / script detector."""

from __future__ import annotations

import unicodedata

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newscrawl.extraction.language import (
    detect_language,
    detect_text_language,
    normalise_language_tag,
    read_declared_language,
)

SAMPLES = {
    "en": "The government said on Tuesday that it would not change the law, and the "
    "opposition has called for a vote. It was the first time this year that they met.",
    "de": "Die Regierung hat am Dienstag erklärt, dass sie das Gesetz nicht ändern wird. "
    "Es ist auch noch nicht klar, wie die Opposition auf den Vorschlag reagiert.",
    "fr": "Le gouvernement a déclaré mardi qu'il ne changerait pas la loi. Les députés de "
    "l'opposition sont dans une situation difficile pour le vote de cette semaine.",
    "es": "El gobierno dijo el martes que no cambiará la ley, y los diputados de la "
    "oposición pidieron una votación para que el texto sea más claro para los ciudadanos.",
    "it": "Il governo ha detto martedì che non cambierà la legge. Per la prima volta "
    "l'opposizione della camera ha chiesto un voto, e non è chiaro come si andrà avanti.",
    "pt": "O governo disse na terça-feira que não vai mudar a lei. Os deputados da oposição "
    "pediram uma votação para que o texto seja mais claro para os cidadãos do país.",
    "nl": "De regering heeft dinsdag gezegd dat zij de wet niet zal veranderen. Het is nog "
    "niet duidelijk hoe de oppositie op het voorstel zal reageren, maar er wordt gestemd.",
    "ru": "Правительство заявило во вторник, что не будет менять закон. Это было первое "
    "заседание в этом году, и оппозиция потребовала голосования по этому вопросу.",
    "pl": "Rząd poinformował we wtorek, że nie zmieni ustawy. To jest pierwsze takie "
    "posiedzenie w tym roku i nie wiadomo, jak na to zareaguje opozycja, która już się zebrała.",
    "ja": "政府は火曜日、法律を変更しないと発表しました。野党は採決を求めています。",
    "zh": "政府周二表示不会修改法律，反对派要求就此问题进行投票表决。",
    "ko": "정부는 화요일 법을 바꾸지 않겠다고 밝혔다. 야당은 표결을 요구했다.",
    "ar": "قالت الحكومة يوم الثلاثاء إنها لن تغير القانون وطالبت المعارضة بالتصويت.",
    "fa": "دولت روز سه‌شنبه اعلام کرد که قانون را تغییر نمی‌دهد و مخالفان خواستار رأی‌گیری شدند.",
    "vi": "Chính phủ cho biết vào thứ Ba rằng họ sẽ không thay đổi luật, và các đại biểu "
    "của phe đối lập đã yêu cầu một cuộc bỏ phiếu trong năm nay.",
    "el": "Η κυβέρνηση δήλωσε την Τρίτη ότι δεν θα αλλάξει τον νόμο "
    "και η αντιπολίτευση ζήτησε ψηφοφορία.",
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_detect_text_language_recognises_common_languages(language: str) -> None:
    assert detect_text_language(SAMPLES[language]) == language


@pytest.mark.parametrize("text", ["", "12345 67890", "OK", "Click here"])
def test_detect_text_language_returns_none_when_unclear(text: str) -> None:
    assert detect_text_language(text) is None


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("en-US", "en"),
        ("pt_BR", "pt"),
        ("DE", "de"),
        (" fr ", "fr"),
        ("und", None),
        # Not ISO 639-1: a charset or a made-up tag declares no language.
        ("utf", None),
        ("utf-8", None),
        ("xx", None),
        ("", None),
        (None, None),
        ("english", None),
        ("x-klingon", None),
        # Norwegian's written standards under "no"; withdrawn codes as ISO 639-1 has them now.
        ("nb-NO", "no"),
        ("nn", "no"),
        ("iw", "he"),
        ("in-ID", "id"),
        ("ji", "yi"),
    ],
)
def test_normalise_language_tag(tag: str | None, expected: str | None) -> None:
    assert normalise_language_tag(tag) == expected


def test_declared_language_wins_over_a_few_foreign_words() -> None:
    page = '<html lang="de-AT"><body><p>Home News Sport. The End. Impressum</p></body></html>'
    assert detect_language(lxml.html.document_fromstring(page)) == "de"


@pytest.mark.parametrize(
    "head",
    [
        '<meta http-equiv="Content-Language" content="fr-FR">',
        '<meta property="og:locale" content="fr_FR">',
    ],
)
def test_declared_language_from_meta(head: str) -> None:
    tree = lxml.html.document_fromstring(f"<html><head>{head}</head><body><p>x</p></body></html>")
    assert read_declared_language(tree) == "fr"


def test_undeclared_page_is_detected_from_body_text_not_scripts() -> None:
    page = (
        "<html><head><script>var the = 'the the the of and to in is';</script></head><body>"
        f"<script>the of and</script><p>{SAMPLES['es']}</p></body></html>"
    )
    assert detect_language(lxml.html.document_fromstring(page)) == "es"


def test_explicit_text_is_used_when_the_page_declares_nothing() -> None:
    tree = lxml.html.document_fromstring("<html><body><p>menu</p></body></html>")
    assert detect_language(tree, text=SAMPLES["it"]) == "it"
    assert detect_language(SAMPLES["nl"]) == "nl"


def _script_language_counting_letters_first(sample: str) -> str | None:
    """The script test as first written: letters counted before looking at any script."""
    from collections import Counter

    from newscrawl.extraction.language import _SCRIPT_LANGUAGES, _arabic_script_language

    scripts: Counter[str] = Counter()
    letters = sum(map(str.isalpha, sample))
    for char in sample:
        if ord(char) <= 0x36F or not char.isalpha():
            continue
        name = unicodedata.name(char, "")
        for script, _ in _SCRIPT_LANGUAGES:
            if name.startswith(script):
                scripts[script] += 1
                break
    if not letters:
        return None
    if scripts["HIRAGANA"] + scripts["KATAKANA"] >= 0.1 * letters:
        return "ja"
    for script, language in _SCRIPT_LANGUAGES:
        if scripts[script] >= 0.4 * letters:
            return _arabic_script_language(sample) if language == "ar" else language
    return None


@pytest.mark.parametrize(
    "sample",
    [
        *SAMPLES.values(),
        "",
        "123 456 !!",
        "Ελληνικά κείμενα εδώ",
        "Latin text with one Greek word: λόγος",
        "日本語のテキスト",
        "中文新闻 and English",
        "한국어 뉴스",
        "ـــ ١٢٣",  # Arabic tatweel and digits: past Latin, but no letters
        "Ωmega " * 3 + "latin " * 20,
    ],
)
def test_script_test_skips_counting_letters_only_when_the_answer_is_none(sample: str) -> None:
    from newscrawl.extraction.language import _dominant_script_language

    assert _dominant_script_language(sample) == _script_language_counting_letters_first(sample)


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=80))
def test_script_test_matches_counting_letters_first_on_any_text(sample: str) -> None:
    from newscrawl.extraction.language import _dominant_script_language

    assert _dominant_script_language(sample) == _script_language_counting_letters_first(sample)


def _tagged_page(lang: str, text: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(f'<html lang="{lang}"><body><p>{text}</p></body></html>')


def test_text_overrules_a_default_english_tag_when_it_clearly_disagrees() -> None:
    swahili = ("Rais amesema kuwa serikali itaendelea na mpango huo katika mwaka ujao, "
               "lakini wananchi wa eneo hilo wanasema kwamba bado hawajaona mabadiliko yoyote "
               "kwa sababu ya ukosefu wa fedha na pia hadi sasa hakuna taarifa zaidi ambayo "
               "zimetolewa na wizara ya fedha au ofisi ya mkuu wa mkoa. ") * 2
    zulu = ("Uthe uma kukhona into engahambi kahle, kufanele abantu bakhulume ngoba lokho "
            "kusho ukuthi bayanakekela futhi ngesikhathi esizayo kuze kube manje, kodwa "
            "yena wathi bona kanye nomphakathi ngokuthi kusukela namhlanje. ") * 2
    assert detect_language(_tagged_page("en", swahili)) == "sw"
    assert detect_language(_tagged_page("en", zulu)) == "zu"


def test_declared_language_stays_when_the_text_agrees_or_is_unclear() -> None:
    english = "The minister said that the plan would go ahead in the new year. " * 5
    assert detect_language(_tagged_page("en", english)) == "en"
    assert detect_language(_tagged_page("en", "Kodwa")) == "en"
    # A tag without a profile to weigh the text against is trusted as it is.
    assert detect_language(_tagged_page("fi", english)) == "fi"


def test_isixhosa_text_tagged_english_is_isixhosa() -> None:
    text = ("UKamogelo Kgatshe wonyulwa njengomanejala kwi projekithi yokugcinwa kweerekhodi. "
            "Iindaba zakutshanje ngakulutsha zezo zinge Sebe lezeKhaya okokuba ligaya isigaba "
            "sesibini, kwaye apha le projekithi iya kuqesha ulutsha kunye nabantu bale mihla. "
            "Ngoku kule nyanga izithuba ezi zivulekile kwi ofisi, ukuba ufuna ukufaka isicelo. ")
    page = f'<html lang="en-US"><body><p>{text}</p></body></html>'
    assert detect_language(lxml.html.document_fromstring(page)) == "xh"


@pytest.mark.parametrize("declared", ["de", "ru", "es"])
def test_english_text_under_another_declared_language_is_english(declared: str) -> None:
    text = SAMPLES["en"] + " " + SAMPLES["en"]
    page = f'<html lang="{declared}"><body><p>{text}</p></body></html>'
    assert detect_language(lxml.html.document_fromstring(page)) == "en"


@pytest.mark.parametrize("declared", ["de", "fr", "no"])
def test_declared_language_stands_when_the_text_agrees_or_cannot_tell(declared: str) -> None:
    text = SAMPLES.get(declared, "Regjeringen sa tirsdag at den ikke ville endre loven.")
    page = f'<html lang="{declared}"><body><p>{text}</p></body></html>'
    assert detect_language(lxml.html.document_fromstring(page)) == declared


@settings(deadline=None, max_examples=300)
@given(st.text(max_size=80))
def test_lower_words_matches_the_word_regex_on_any_text(sample: str) -> None:
    import re

    from newscrawl.extraction.language import _lower_words

    assert _lower_words(sample) == re.findall(r"\w+", sample.lower())


@settings(deadline=None, max_examples=300)
@given(st.text(alphabet=st.sampled_from([*"aZé9_ \t\x1c\x00,.'(-“”’—…¿«", "\u0301"]), max_size=60))
def test_lower_words_matches_the_word_regex_on_words_among_punctuation(sample: str) -> None:
    import re

    from newscrawl.extraction.language import _lower_words

    assert _lower_words(sample) == re.findall(r"\w+", sample.lower())


@pytest.mark.parametrize(
    "sample",
    [
        "snake_case words, too",
        "x\u00a0y\u2028z",
        "İstanbul ǅ ß",
        "1\u00b2 \u0660",
        "He said, (the) “U.S.”—e-mail… _x_ ¿qué? «oui»",
        "plain ascii: said, (the) U.S. e-mail _x_ \x00\x1f",
    ],
)
def test_lower_words_matches_the_word_regex_on_odd_characters(sample: str) -> None:
    import re

    from newscrawl.extraction.language import _lower_words

    assert _lower_words(sample) == re.findall(r"\w+", sample.lower())
