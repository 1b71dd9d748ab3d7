"""Author names from a byline: prefixes, suffixes, credits and interface text removed.

A byline may name people or, for agency and desk copy, an organisation ("AP", "dpa",
"BBC News"): organisations are kept in the form the page gives when they are the byline.
"""

from __future__ import annotations

import re

_WHITESPACE = re.compile(r"\s+")
# Byline prefixes in the dev sets' languages, and roles said before the name.
_AUTHOR_PREFIX = re.compile(
    r"^(?:(?:written|posted|reported|story|text|words|edited|compiled)\s+)?by[:\s]+"
    r"|^(?:from|von|par|por|av|di|door|af|autor(?:in)?:?|auteur\s*:|author:?|"
    r"redacci[oó]n:|texto?:|текст:|автор:|источник:)\s+",
    re.IGNORECASE,
)
# Titles and roles said after the name: "신현주 기자", "山田太郎 記者".
_AUTHOR_SUFFIX = re.compile(r"\s*(?:기자|특파원|선임기자|記者|特派員|编辑|記)$")
# A bracketed tail is initials ("(obe)"), an address ("(www.dw.com)") or a credit.
_BRACKETED_TAIL = re.compile(r"\s*[(\[][^)\]]*[)\]]\s*$")
_WEB_ADDRESS = re.compile(r"www\.|\w\.(?:com|org|net|de|ch|at|fr|uk|es|it)\b", re.I)
_BRACKETED = re.compile(r"^\s*[(\[].*[)\]]\s*$")
# "and" between names in the dev sets' languages: English, German, French, Spanish, Italian and
# Portuguese, Norwegian and Danish, Polish, Dutch, Swedish, Russian and Ukrainian, Turkish,
# Vietnamese, Lithuanian, Hungarian, Finnish.
# A long fragment with lower-case words besides these is a role ("Mykolo Romerio universiteto
# Žmogaus ir visuomenės studijų fakulteto profesorius"), not names to split at its "and".
_AUTHOR_SEPARATORS = re.compile(r"\s*(?:,|;|\||&|\+|/)\s*")
_AUTHOR_CONJUNCTIONS = re.compile(
    r"\s+(?:and|und|et|y|e|og|i|en|och|и|і|та|ve|và|ir|és|ja|with|mit)\s+", re.IGNORECASE
)
_NAME_PARTICLES = frozenset(re.findall(
    r"\S+",
    "and und et y e og i en och и і та ve và ir és ja with mit in at for from "
    "de del della der den van von da di du la le dos das bin al el ten ter zu",
))
# Words that mark a fragment as something other than a name. Month names are left out:
# "April", "June" and "Jan" are also first names, and dates carry digits, rejected anyway.
_AUTHOR_JUNK = re.compile(
    r"\b(?:published|updated|posted|modified|minutes?|min|read|reading|time|staff|writer|"
    r"reporter|editor|correspondent|contributor|columnist|share|follow|email|e-mail|twitter|"
    r"facebook|comments?|photos?|image|images|getty|video|am|pm|gmt|utc|edt|est|pdt|pst|bst|"
    r"ago|today|yesterday|report|reports|posts|view|archive|profile|more|articles?|stories|subscribe|newsletter|"
    r"fehler|gefunden|artikel|mehr|weitere|foto|bild|quelle|source|sources|times|news|tribune|"
    r"press|journal|herald|gazette|magazine|newsroom|network|media|agency|desk|team|bureau|"
    r"wires?|producers?|service|online|digital|editorial|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    re.IGNORECASE,
)
# Agencies and desks, accepted as a whole byline although one word or an organisation's name.
_AGENCIES = frozenset(
    name.casefold()
    for name in (
        "AP", "Associated Press", "The Associated Press", "dpa", "Deutsche Presse-Agentur",
        "Reuters", "AFP", "Agence France-Presse", "EFE", "ANSA", "APA", "KNA", "epd", "SDA",
        "Keystone-SDA", "SID", "PA", "PA Media", "Press Association", "Bloomberg", "Xinhua",
        "TASS", "Interfax", "Kyodo", "Yonhap", "EPA", "Europa Press", "AAP", "CP",
        "The Canadian Press", "Canadian Press", "UPI", "ANP", "NTB", "TT", "Ritzau", "PAP",
        "ČTK", "MTI", "BBC News", "CNN", "dpa-AFX", "AFP/dpa", "RIA Novosti", "Lusa",
    )
)
# A desk byline: the outlet's or section's name, then the word for its newsroom ("MND Staff",
# "BR24 Redaktion", "Gear Team", "Rédaction Le Monde" reads the other way round).
_DESK_WORD = (
    r"(?:staff|team|desk|newsroom|editors|editorial|redaktion|online-redaktion|nachrichtenredaktion|"
    r"red(?:acci[oó]n|azione)|r[eé]daction|redactie|redaksjonen|redaktionen|redakcja|редакция)"
)
_DESK_BYLINE = re.compile(
    rf"^(?:[^\s]+\s+){{1,3}}{_DESK_WORD}$|^{_DESK_WORD}\s+(?:[^\s]+\s*){{1,3}}$", re.IGNORECASE
)
# A company's legal form names the publisher's owner, not a writer ("Nikkei Inc.").
_COMPANY = re.compile(
    r"\s(?:(?i:inc|ltd|llc|plc|corp|corporation|gmbh|company|holdings?|verlag|mediengruppe)\.?"
    r"|AG|SA|S\.A\.|S\.p\.A\.|SpA|BV|NV|AB|ASA|Oy|KG|Co\. KG)$|株式会社|有限会社"
)
_DESK_WORDS = re.compile(rf"\b{_DESK_WORD}\b", re.IGNORECASE)
# "JENNIFER BAIN in Boston": the dateline is not part of the name.
_AUTHOR_PLACE = re.compile(r"\s+(?:in|at|for|from)\s+[A-Z].*$")
# "Finian Cunningham. Sputnik International": an outlet after the name's full stop.
_OUTLET_TAIL = re.compile(r"(?<=[^\s.]{3})\.\s+\S.*$")
_MAX_AUTHOR_WORDS = 5
_MAX_AUTHORS = 10
_STRIP = " .:-\u2013\u2014|·•,"


# A CMS account rather than a writer: "/author/admin/" names whoever posted the page.
_ACCOUNT_URL = re.compile(
    r"/(?:author|authors|autor|auteur|user|profile)/(?:admin|administrator|webmaster|root|"
    r"wpadmin|editor|redaktion|redaccion|redacao|staff|superuser)(?:[/?#]|$)",
    re.IGNORECASE,
)
# Yoast SEO's "twitter:labelN" in the languages it ships: its "twitter:dataN" is the writer.
_WRITTEN_BY_LABEL = re.compile(
    r"^(?:written by|verfasst von|geschrieben von|[ée]crit par|escrito por|scritto da|"
    r"geschreven door|skriven av|skrevet a[fv]|napisane przez|написано|yazan|ditulis oleh|"
    r"kirjoittanut|írta|napsal)\b",
    re.IGNORECASE,
)
# "Quelle: dpa", "Source: AFP": where the material comes from, a credit rather than a byline.
_SOURCE_CREDIT = re.compile(r"^\s*(?:quelle|source|fuente|fonte|bron|kilde|källa|źródło)\s*:", re.I)


def is_account_url(url: str | None) -> bool:
    """Whether the URL is a CMS account's page ("/author/admin/"), which names no writer."""
    return bool(url) and bool(_ACCOUNT_URL.search(url or ""))


def is_written_by_label(label: str) -> bool:
    """Whether a Yoast "twitter:labelN" announces the writer ("Written by", "Verfasst von")."""
    return bool(_WRITTEN_BY_LABEL.match(label.strip()))


def is_source_credit(text: str) -> bool:
    """Whether a line credits a source ("Quelle: sid/dpa") rather than naming the writer."""
    return bool(_SOURCE_CREDIT.match(text))


def byline_subject(raw: str) -> str:
    """The byline without its prefix ("Von Dizindaba" -> "Dizindaba"), case-folded."""
    text = _WHITESPACE.sub(" ", raw).strip(_STRIP)
    return _AUTHOR_PREFIX.sub("", text).strip(_STRIP).casefold()


def is_desk(name: str) -> bool:
    """Whether the name is a desk byline ("MND Staff", "BR24 Redaktion") rather than a person."""
    return bool(_DESK_BYLINE.match(name.strip()))


def is_agency(name: str) -> bool:
    """Whether the name is a news agency or desk byline ("dpa", "AP", "BBC News")."""
    return name.casefold() in _AGENCIES


def clean_author_names(raw: str, *, organisations: frozenset[str] = frozenset()) -> list[str]:
    """Split a byline into names, dropping prefixes, roles, credits, dates and interface text.

    `organisations` (case-folded) are names accepted as they are, like the agencies: the
    page's own organisation authors, such as a JSON-LD `Organization`.
    """
    text = _WHITESPACE.sub(" ", raw).strip(_STRIP)
    if not text or text.startswith(("http:", "https:", "www.")) or "?" in text:
        return []
    if ("@" in text and " " not in text) or _BRACKETED.match(text):
        return []
    names: list[str] = []
    for part in _split_byline(_AUTHOR_PREFIX.sub("", text)):
        name = clean_author_name(part, organisations)
        if name and name.casefold() not in {n.casefold() for n in names}:
            names.append(name)
    return names[:_MAX_AUTHORS]


def _split_byline(text: str) -> list[str]:
    """The byline's fragments: at commas and the like, then at "and" between two names."""
    parts: list[str] = []
    for fragment in _AUTHOR_SEPARATORS.split(text):
        words = fragment.split()
        is_role = len(words) > _MAX_AUTHOR_WORDS and any(
            word[0].islower() and word not in _NAME_PARTICLES for word in words
        )
        parts.extend([fragment] if is_role else _AUTHOR_CONJUNCTIONS.split(fragment))
    return parts


def clean_author_name(part: str, organisations: frozenset[str] = frozenset()) -> str | None:
    """One byline fragment as a name, or None when it is not one."""
    name = _AUTHOR_PREFIX.sub("", part.strip(_STRIP)).strip(_STRIP)
    tail = _BRACKETED_TAIL.search(name)
    if tail is not None:
        # "Deutsche Welle (www.dw.com)": a name with a web address is the site, not a person.
        if "@" not in tail.group() and _WEB_ADDRESS.search(tail.group()):
            return None
        name = name[: tail.start()]
    name = _AUTHOR_SUFFIX.sub("", name).strip(_STRIP)
    if not name or "@" in name or _COMPANY.search(name):
        return None
    folded = name.casefold()
    if folded in _AGENCIES or folded in organisations:
        return name
    if _DESK_BYLINE.match(name):
        outlet = _DESK_WORDS.sub("", name).strip(_STRIP)
        return name if outlet and not _AUTHOR_JUNK.search(outlet) else None
    name = _AUTHOR_PLACE.sub("", name)
    if " " in name:
        name = _OUTLET_TAIL.sub("", name)
    if _AUTHOR_JUNK.search(name) or any(char.isdigit() for char in name):
        return None
    words = name.split()
    # "Ed Hornick CNN": a trailing acronym names the outlet ("André Oliver KLEIN" a surname).
    if len(words) > 2 and len(words[-1]) <= 4 and words[-1].isupper() and not words[0].isupper():
        words = words[:-1]
        name = " ".join(words)
    if len(words) == 1 and _is_cjk_name(name):
        return name
    # One word is a handle ("byjdoe"), an outlet or a fragment, rarely a person.
    if not 2 <= len(words) <= _MAX_AUTHOR_WORDS:
        return None
    return name


def _is_cjk_name(name: str) -> bool:
    """A Korean, Chinese or Japanese name is written without spaces, in 2 to 4 characters."""
    return 2 <= len(name) <= 4 and all(
        "\u3040" <= char <= "\u30ff" or "\u4e00" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7a3"
        for char in name
    )


def dedupe_names(names: list[str]) -> list[str]:
    """The names once each, ignoring case, in order; at most `_MAX_AUTHORS`."""
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.casefold(), name)
    return list(seen.values())[:_MAX_AUTHORS]


def jsonld_authors(value: object) -> tuple[list[str], list[str]]:
    """(people, organisations) named by a JSON-LD `author` value, in order."""
    people: list[str] = []
    organisations: list[str] = []
    # A hostile page may list a million authors: the first few are all that is kept anyway.
    for item in _flatten(value)[: 5 * _MAX_AUTHORS]:
        if isinstance(item, str):
            (organisations if is_agency(item.strip()) else people).append(item)
        elif isinstance(item, dict):
            address = item.get("@id") or item.get("url")
            if isinstance(address, str) and is_account_url(address):
                continue
            name = item.get("name")
            if isinstance(name, list):
                name = next((n for n in name if isinstance(n, str)), None)
            if not isinstance(name, str) or not name.strip():
                continue
            types = item.get("@type")
            kinds = {types} if isinstance(types, str) else set(types or [])
            is_organisation = bool(kinds & {"Organization", "NewsMediaOrganization"})
            (organisations if is_organisation else people).append(name)
    return people, organisations


def _flatten(value: object, depth: int = 0) -> list[object]:
    """The items of a JSON-LD value whose lists may nest (`[person, [desk]]`), in order."""
    if not isinstance(value, list):
        return [value]
    if depth > 3:
        return []
    return [item for inner in value for item in _flatten(inner, depth + 1)]
