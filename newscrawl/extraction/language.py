"""Page language: the declared `<html lang>`, else a guess from the text itself.

The guess is a small pure-python detector: the writing system decides for scripts used by
one language (Greek, Hangul, kana...), and a stop-word profile decides between the languages
that share the Latin or Cyrillic alphabets.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from lxml.html import HtmlElement

from newscrawl.extraction import compiled_loops
from newscrawl.extraction.tag_sets import SCRIPTING_TAGS

# The compiled body-text sample (see compiled_loops): the Python walk's text, in one C walk.
_walk = compiled_loops.node_walk
_compiled_body_text = None if _walk is None else _walk.body_text_sample
# The compiled word split (see compiled_loops): `_lower_words`' words, split in one C pass.
_rows = compiled_loops.block_rows
_compiled_lower_words = None if _rows is None else _rows.lower_words

# ISO 639-1: a declared tag outside it ("utf", "english", "x-default") names no language.
_ISO_639_1 = frozenset(re.findall(
    r"[a-z]{2}",
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv "
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr "
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw "
    "ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv "
    "ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr "
    "ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi "
    "yo za zh zu",
))
# Codes a page may declare for a language that has one ISO 639-1 code users query by: the
# Norwegian written standards (Bokmål, Nynorsk) under "no", and the codes ISO withdrew.
_CODE_ALIASES = {"nb": "no", "nn": "no", "iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"}
_LANGUAGE_TAG = re.compile(r"^\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*\s*$")
_WORD = re.compile(r"\w+")
# Characters that are no word character (`\w`) nor white space: ASCII punctuation and controls,
# and the quotes and dashes of most text. They only ever separate words.
_PUNCTUATION = "".join(
    char
    for char in (
        *map(chr, range(128)),
        *"\u00a1\u00ab\u00b7\u00bb\u00bf\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2026",
    )
    if not (char.isalnum() or char == "_" or char.isspace())
)
# Each such ASCII character made a space, for `str.translate` (ASCII text is translated in C).
_ASCII_SEPARATORS = {ord(char): " " for char in _PUNCTUATION if char.isascii()}

# Enough text to decide; more only costs time.
_SAMPLE_CHARS = 3000
_BEYOND_LATIN = re.compile("[^\u0000-\u036f]")
_MIN_STOPWORD_HITS = 3
_MIN_STOPWORD_SHARE = 0.08
# Declared languages checked against the text: those with a stop-word profile below, so that
# the declared language's own words count against the guess. A CMS's default ("en", or the
# publisher's home language on its pages in another) is the usual cause of a wrong tag.
# The text overrules the declared language when the guess has this many times the stop words
# of the declared language and of any other.
_CLEAR_DISAGREEMENT = 2.5
_MIN_OVERRULING_HITS = 5

_STOPWORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the of and to in is that for it was on with as he be by at are this from "
        "his but have not they an which or had has were their been will would who its",
        "de": "der die und das ist den nicht von sie mit des sich auf dem ein eine im "
        "auch es an werden aus er hat dass zu wie bei oder wird sind einer noch nach",
        "fr": "le la les et des est une un du que dans pour qui pas sur au par plus "
        "ce il sont avec ne se mais ont été aux cette nous leur elle",
        "es": "el la de que y los en del se las por un una para con no es al lo como "
        "más pero sus le ha fue este sobre entre también desde está",
        "it": "il di che la e è per un una del della non in sono le con si da dei al "
        "alla anche gli nel come più ha ma delle questo sul dalla",
        "pt": "de que não o da do em um uma para com os no se na por mais as dos como "
        "mas foi ao ele das à seu sua ou quando muito nos já está também",
        "nl": "de het een en van is dat niet in op te zijn voor met die er aan ook "
        "als bij maar om dan nog wordt door naar heeft hij ze werd",
        "sv": "och att det som en på är av för med den till har inte var om ett de "
        "jag men han hon kan så sig från eller när efter också",
        "da": "og at det som en på er af for med den til har ikke var om et de jeg "
        "men han hun kan så sig fra eller når efter også blev skal",
        "pl": "i w nie na się z do że to jest jak o po ale co od za tak przez dla "
        "już są jego jej był była może oraz które który",
        "cs": "a je se na že v s to do jsou jako by ale k o z pro které který podle "
        "jeho už také bylo byl tak při jen když",
        "ro": "și de la în a că cu nu se pe din o un care este mai pentru ca sunt fost "
        "ce au lui sau această dar acest",
        "tr": "ve bir bu da de için ile çok ne daha gibi olarak olan ama en kadar "
        "sonra ya her şey değil var ki mi göre",
        "id": "yang dan di ini itu dengan untuk tidak dari dalam akan pada juga ke "
        "karena ada oleh mereka bisa atau sudah kata saat bahwa",
        "hu": "a az és hogy nem is egy meg van ez de azt csak már el mint volt még "
        "ki sem után lesz vagy kell pedig",
        "vi": "và của là có không được cho những một các trong người này đã với cũng "
        "khi đến từ theo như về sẽ nhiều để thì tại ông năm",
        "ru": "и в не на что с по он как это к но из у за от о же так все она было "
        "его только для был мы бы они ее при уже",
        "uk": "і в не на що з та до як це у але за від по він його була було ми вони "
        "для також її які який щоб є",
        # Pages in these are often tagged lang="en" by their CMS: the text must tell.
        "sw": "na ya wa kwa za la katika ni kuwa cha hiyo hii huo yake wake pia lakini au "
        "kama hadi baada ambao ambayo zaidi wakati hivyo kutoka bado sana vya hayo",
        "zu": "futhi ukuthi kanye uma noma ngoba lokho lapho kusho wathi yena bona "
        "ngesikhathi kuze manje ngokuthi kusukela kodwa abantu lapha kakhulu lezi leli",
        "xh": "kwaye kunye xa okanye ngoko uthe naye ukuze ngexesha kuba esi eli oku "
        "ukuba kodwa abantu kwi okokuba apha bale ngoku kule ezi olu loo kakhulu kwakhona",
    }.items()
}

_OVERRULED_DECLARATIONS = frozenset(_STOPWORDS)


def _index_stopwords(profiles: dict[str, frozenset[str]]) -> dict[str, tuple[str, ...]]:
    """Map every stop word to the languages whose profile holds it, in profile order."""
    index: dict[str, list[str]] = {}
    for language, stopwords in profiles.items():
        for word in stopwords:
            index.setdefault(word, []).append(language)
    return {word: tuple(languages) for word, languages in index.items()}


# Inverted, so a text's words are looked up once instead of once per language.
_STOPWORD_LANGUAGES = _index_stopwords(_STOPWORDS)

_PERSIAN_LETTERS = "پچژگکی"
_URDU_LETTERS = "ٹڈڑںے"
# Scripts that, when they dominate the letters, name the language on their own.
_SCRIPT_LANGUAGES = (
    ("HANGUL", "ko"),
    ("HIRAGANA", "ja"),
    ("KATAKANA", "ja"),
    ("CJK", "zh"),
    ("ARABIC", "ar"),
    ("HEBREW", "he"),
    ("GREEK", "el"),
    ("THAI", "th"),
    ("DEVANAGARI", "hi"),
)


def normalise_language_tag(tag: str | None) -> str | None:
    """Return the primary subtag of a BCP 47 / locale tag ("en-US", "pt_BR"), lower-cased."""
    if not tag:
        return None
    match = _LANGUAGE_TAG.match(tag)
    if match is None:
        return None
    code = match.group(1).lower()
    code = _CODE_ALIASES.get(code, code)
    return code if code in _ISO_639_1 else None


def read_declared_language(
    tree: HtmlElement, *, meta_elements: Iterable[HtmlElement] | None = None
) -> str | None:
    """Return the language the page declares: `<html lang>`, Content-Language or og:locale.

    `meta_elements`, when the caller already has them, are the page's `<meta>` elements.
    """
    root = tree.getroottree().getroot()
    for attribute in ("lang", "{http://www.w3.org/XML/1998/namespace}lang", "xml:lang"):
        code = normalise_language_tag(root.get(attribute))
        if code:
            return code
    for meta in root.iter("meta") if meta_elements is None else meta_elements:
        key = (meta.get("http-equiv") or meta.get("name") or meta.get("property") or "").lower()
        if key in {"content-language", "language", "og:locale", "dc.language"}:
            code = normalise_language_tag((meta.get("content") or "").split(",")[0])
            if code:
                return code
    return None


def _dominant_script_language(sample: str) -> str | None:
    if sample.isascii():
        return None  # no letter beyond Latin (checked in C, where the search below is not)
    scripts: Counter[str] = Counter()
    # Latin and its extensions are left to the stop-word profiles; look only past them.
    for char in _BEYOND_LATIN.findall(sample):
        if not char.isalpha():
            continue
        name = unicodedata.name(char, "")
        for script, _ in _SCRIPT_LANGUAGES:
            if name.startswith(script):
                scripts[script] += 1
                break
    if not scripts:
        # No letter of a listed script: no share below can reach its threshold, so the letter
        # count (the costly part on the many Latin pages) is not needed.
        return None
    letters = sum(map(str.isalpha, sample))  # map runs the test in C, a generator would not
    if not letters:
        return None
    # Japanese mixes kanji with kana, so any real share of kana means Japanese.
    kana = scripts["HIRAGANA"] + scripts["KATAKANA"]
    if kana >= 0.1 * letters:
        return "ja"
    for script, language in _SCRIPT_LANGUAGES:
        if scripts[script] >= 0.4 * letters:
            if language == "ar":
                return _arabic_script_language(sample)
            return language
    return None


def _arabic_script_language(sample: str) -> str:
    """Tell Urdu and Persian from Arabic by the letters Arabic does not use."""
    if sum(sample.count(char) for char in _URDU_LETTERS) >= 3:
        return "ur"
    if sum(sample.count(char) for char in _PERSIAN_LETTERS) >= 3:
        return "fa"
    return "ar"


def detect_text_language(text: str, *, declared: str | None = None) -> str | None:
    """Guess the language of a text, or None when the text is too short or unclear.

    With `declared`, return the guess only when the text clearly disagrees with it: the
    declared language's stop words are rare where the guessed one's are common.
    """
    sample = text[:_SAMPLE_CHARS]
    by_script = _dominant_script_language(sample)
    if by_script is not None:
        return by_script
    words = _lower_words(sample)
    if not words:
        return None
    best_language, best_hits, second_hits, declared_hits = None, 0, 0, 0
    for language, hits in _count_stopword_hits(words).items():
        if hits > best_hits:
            best_language, best_hits, second_hits = language, hits, best_hits
        elif hits > second_hits:
            second_hits = hits
        if language == declared:
            declared_hits = hits
    if declared is not None:
        # Agglutinating languages (isiZulu, isiXhosa) have few stop words, so the share test
        # below would never pass: against a declaration, a clear margin decides instead.
        runner_up = max(declared_hits, second_hits, 1)
        clear = best_hits >= _MIN_OVERRULING_HITS and best_hits >= _CLEAR_DISAGREEMENT * runner_up
        return best_language if clear and best_language != declared else None
    if best_hits < _MIN_STOPWORD_HITS or best_hits < _MIN_STOPWORD_SHARE * len(words):
        return None
    return best_language


def _lower_words(text: str) -> list[str]:
    """`_WORD.findall(text.lower())`, with the regex run only on tokens that need it.

    No whitespace character is a word character, so the words are those of each
    whitespace-separated token; a token of letters and digits alone is one word, and most are,
    and so is one that is such a word between punctuation (`"said,"`, `(the`). An ASCII text's
    word characters are `[a-z0-9_]`: every other character only separates words.
    """
    if _compiled_lower_words is not None:
        return _compiled_lower_words(text)
    # The reference for `_block_rows.lower_words`.
    lowered = text.lower()
    if lowered.isascii():
        return lowered.translate(_ASCII_SEPARATORS).split()
    words: list[str] = []
    find = _WORD.findall
    add = words.append
    for token in lowered.split():
        if token.isalnum():
            add(token)
            continue
        core = token.strip(_PUNCTUATION)
        if core.isalnum():
            add(core)
        else:
            words += find(token)
    return words


def _count_stopword_hits(words: list[str]) -> dict[str, int]:
    """How many of `words` are stop words of each profiled language, in profile order."""
    hits = dict.fromkeys(_STOPWORDS, 0)
    # Most words are no stop word: `filter` drops them in C before anything is counted.
    stopwords = Counter(filter(_STOPWORD_LANGUAGES.__contains__, words))
    for word, count in stopwords.items():
        for language in _STOPWORD_LANGUAGES[word]:
            hits[language] += count
    return hits


def _read_body_text(tree: HtmlElement) -> str:
    """The body's visible text, read until a sample's worth (`_SAMPLE_CHARS`) is gathered."""
    root = tree.getroottree().getroot()
    if _compiled_body_text is not None:
        found = _compiled_body_text(root, SCRIPTING_TAGS, _SAMPLE_CHARS)
        if found is not None:
            return found
    return _read_body_text_python(root)


def _read_body_text_python(root: HtmlElement) -> str:
    """`_read_body_text` by walking the tree in Python: the reference for the compiled one."""
    body = root.find("body")
    node = body if body is not None else root
    parts: list[str] = []
    size = 0
    for element in node.iter():
        # Scripts, styles and comments hold no readable text, but their tails do.
        tag = element.tag
        if isinstance(tag, str) and tag not in SCRIPTING_TAGS:
            text = element.text
            if text and not text.isspace():
                parts.append(text)
                size += len(text)
        tail = element.tail
        if tail and not tail.isspace():
            parts.append(tail)
            size += len(tail)
        if size > _SAMPLE_CHARS:
            break
    return " ".join(parts)


def detect_language(
    source: HtmlElement | str,
    *,
    text: str | None = None,
    meta_elements: Iterable[HtmlElement] | None = None,
) -> str | None:
    """Return the page's declared language, else the language of `text` (or of its body text).

    `source` may also be plain text, which is then classified directly.
    """
    if isinstance(source, str):
        return detect_text_language(source)
    declared = read_declared_language(source, meta_elements=meta_elements)
    if declared is not None and declared not in _OVERRULED_DECLARATIONS:
        return declared  # no profile to weigh the text against: the page is taken at its word
    found = detect_text_language(
        text if text is not None else _read_body_text(source), declared=declared
    )
    return found or declared
