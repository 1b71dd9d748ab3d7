"""Metadata evaluation: title, date, authors and language against a dataset's gold metadata.

Scores newscrawl and the metadata peers (trafilatura, newspaper4k) on the same pages in the
same run. Per page: the title matches after collapsing whitespace and ignoring case; the date
falls on the gold's day (in the gold's offset), and in its minute where the gold has a time;
author set F1 over normalised names (both empty counts 1); a junk page returns a name the gold
lacks; the language matches the gold's ISO 639-1 code.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import re
import unicodedata
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from newscrawl.evaluation.errors import DatasetError, PeerUnavailableError

METADATA_PEER_NAMES = ("trafilatura", "newspaper4k")
FIELDS = ("title", "date_day", "date_minute", "authors", "language")


@dataclass(frozen=True)
class GoldMetadata:
    """One page's gold metadata, read from the dataset's `index.jsonl`."""

    id: str
    url: str | None
    html_path: Path
    title: str | None
    authors: list[str]
    published: str | None
    published_has_time: bool
    language: str | None
    lang_group: str


@dataclass(frozen=True)
class PredictedMetadata:
    """What one extractor said about a page."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    published: datetime | None = None
    language: str | None = None


@dataclass(frozen=True)
class PageScore:
    """One extractor's result on one page; None where the field has no gold."""

    id: str
    lang_group: str
    title: bool | None
    date_day: bool | None
    date_minute: bool | None
    author_f1: float
    junk_authors: list[str]
    language: bool | None

    def failures(self) -> list[str]:
        """The fields this page fails, by name."""
        failed = [name for name in ("title", "date_day", "date_minute", "language")
                  if getattr(self, name) is False]
        if self.author_f1 < 1.0:
            failed.append("authors")
        return failed


Extractor = Callable[[bytes, str | None], PredictedMetadata]


def read_gold_metadata(folder: Path | str) -> list[GoldMetadata]:
    """Read the pages of a dataset that carry gold metadata; raise DatasetError when none do."""
    index = Path(folder) / "index.jsonl"
    if not index.is_file():
        raise DatasetError(f"{folder}: no index.jsonl (see the datasets README for the layout)")
    pages: list[GoldMetadata] = []
    for number, line in enumerate(index.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if "gold_title" not in entry and "gold_authors" not in entry:
                continue
            page_id = str(entry["id"])
            pages.append(GoldMetadata(
                id=page_id,
                url=entry.get("url") or None,
                html_path=Path(folder) / entry.get("html_path", f"html/{page_id}.html"),
                title=entry.get("gold_title") or None,
                authors=[str(name) for name in entry.get("gold_authors") or []],
                published=entry.get("gold_published") or None,
                published_has_time=bool(entry.get("gold_published_has_time")),
                language=entry.get("language") or None,
                lang_group=str(entry.get("lang_group") or "unknown"),
            ))
        except (ValueError, KeyError, TypeError) as exc:
            raise DatasetError(f"{index}:{number}: bad index entry ({exc})") from exc
    if not pages:
        raise DatasetError(f"{index}: no page carries gold metadata (gold_title, gold_authors)")
    return pages


def normalise_text(text: str | None) -> str:
    """Case-folded text with its whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text or "").split()).casefold()


def normalise_name(name: str) -> str:
    """A name compared without case, punctuation or extra spaces."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def author_f1(predicted: list[str], gold: list[str]) -> float:
    """Set F1 of the normalised names; 1.0 when both are empty."""
    got = {normalise_name(n) for n in predicted} - {""}
    want = {normalise_name(n) for n in gold} - {""}
    if not got and not want:
        return 1.0
    common = len(got & want)
    if common == 0:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def _language_code(value: str | None) -> str | None:
    if not value:
        return None
    return re.split(r"[-_]", value.strip().lower(), maxsplit=1)[0] or None


def score_dates(predicted: datetime | None, gold: str | None) -> tuple[bool | None, bool | None]:
    """(same day, same minute) in the gold's offset; minute is None when gold has no time."""
    if gold is None:
        return None, None
    want = datetime.fromisoformat(gold)
    if predicted is None:
        return False, False
    got = predicted
    if got.tzinfo is not None and want.tzinfo is not None:
        got = got.astimezone(want.tzinfo)
    same_day = got.date() == want.date()
    same_minute = same_day and (got.hour, got.minute) == (want.hour, want.minute)
    return same_day, same_minute


def score_page(gold: GoldMetadata, predicted: PredictedMetadata) -> PageScore:
    """Score one extractor's metadata of one page against the gold."""
    day, minute = score_dates(predicted.published, gold.published)
    wanted = {normalise_name(n) for n in gold.authors}
    junk = [n for n in predicted.authors if normalise_name(n) not in wanted]
    return PageScore(
        id=gold.id,
        lang_group=gold.lang_group,
        title=None if gold.title is None
        else normalise_text(predicted.title) == normalise_text(gold.title),
        date_day=day,
        date_minute=minute if gold.published_has_time else None,
        author_f1=author_f1(predicted.authors, gold.authors),
        junk_authors=junk,
        language=None if gold.language is None
        else _language_code(predicted.language) == _language_code(gold.language),
    )


def newscrawl_extractor(html: bytes, url: str | None) -> PredictedMetadata:
    """newscrawl's metadata as `extract` returns it, without a feed title."""
    from newscrawl.extraction import extract

    article = extract(html, url=url)
    return PredictedMetadata(article.title or None, list(article.authors), article.published,
                             article.language)


def _import_peer(module: str, peer: str) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(module)
    except ImportError as exc:
        raise PeerUnavailableError(
            f"metadata peer {peer!r} needs the {module!r} package: pip install 'newscrawl[bench]'"
        ) from exc


def _parse_peer_date(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def _trafilatura_extractor() -> Extractor:
    trafilatura = _import_peer("trafilatura", "trafilatura")

    def run(html: bytes, url: str | None) -> PredictedMetadata:
        document = trafilatura.bare_extraction(
            html, url=url, with_metadata=True,
            date_extraction_params={"extensive_search": True, "original_date": True,
                                    "outputformat": "%Y-%m-%dT%H:%M:%S"},
        )
        if document is None:
            return PredictedMetadata()
        def read(name: str) -> Any:
            if isinstance(document, dict):
                return document.get(name)
            return getattr(document, name, None)

        authors = [a.strip() for a in (read("author") or "").split(";") if a.strip()]
        return PredictedMetadata(read("title"), authors, _parse_peer_date(read("date")),
                                 read("language"))

    return run


def _newspaper_extractor() -> Extractor:
    newspaper = _import_peer("newspaper", "newspaper4k")
    tldextract = _import_peer("tldextract", "newspaper4k")
    # Its default extractor fetches the public suffix list over the network on first use; the
    # bundled snapshot does as well offline, without the wait.
    tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=())

    def run(html: bytes, url: str | None) -> PredictedMetadata:
        # Its parse() downloads the top image unless told not to: no network in an evaluation.
        article = newspaper.Article(url or "http://localhost/", fetch_images=False)
        article.download(input_html=html.decode("utf-8", errors="replace"))
        article.parse()
        return PredictedMetadata(article.title or None, list(article.authors),
                                 article.publish_date, article.meta_lang or None)

    return run


_PEER_FACTORIES: dict[str, Callable[[], Extractor]] = {
    "trafilatura": _trafilatura_extractor,
    "newspaper4k": _newspaper_extractor,
}
_PEER_DISTRIBUTIONS = {"trafilatura": "trafilatura", "newspaper4k": "newspaper4k"}


def load_metadata_peers(names: list[str]) -> dict[str, Extractor]:
    """Load the named metadata peers; raise PeerUnavailableError for unknown or missing ones."""
    peers: dict[str, Extractor] = {}
    for name in names:
        key = name.strip().lower()
        factory = _PEER_FACTORIES.get(key)
        if factory is None:
            raise PeerUnavailableError(
                f"unknown metadata peer {name!r}; known: {', '.join(METADATA_PEER_NAMES)}"
            )
        peers[key] = factory()
    return peers


def peer_version(name: str) -> str:
    """The installed version of a metadata peer, or ""."""
    try:
        return importlib.metadata.version(_PEER_DISTRIBUTIONS.get(name, name))
    except importlib.metadata.PackageNotFoundError:
        return ""


@dataclass
class ExtractorSummary:
    """One extractor's scores over all pages."""

    name: str
    scores: list[PageScore] = field(default_factory=list)
    errors: int = 0

    def rate(self, name: str) -> float | None:
        """Share of the pages with gold for the field that pass it."""
        values = [getattr(s, name) for s in self.scores if getattr(s, name) is not None]
        return sum(values) / len(values) if values else None

    def mean_author_f1(self) -> float:
        """Author set F1 averaged over the pages."""
        return sum(s.author_f1 for s in self.scores) / len(self.scores) if self.scores else 0.0

    def junk_pages(self) -> int:
        """Pages with at least one name the gold lacks."""
        return sum(1 for s in self.scores if s.junk_authors)

    def failures_by_group(self) -> dict[str, dict[str, int]]:
        """For each language group: pages, and pages failing each field."""
        groups: dict[str, dict[str, int]] = {}
        for score in self.scores:
            counts = groups.setdefault(score.lang_group, {"pages": 0, **dict.fromkeys(FIELDS, 0)})
            counts["pages"] += 1
            for failed in score.failures():
                counts[failed] += 1
        return dict(sorted(groups.items()))


def evaluate_metadata(
    datasets: list[Path], extractors: dict[str, Extractor], limit: int | None = None
) -> list[ExtractorSummary]:
    """Run every extractor on every page with gold metadata and score it."""
    summaries = {name: ExtractorSummary(name) for name in extractors}
    for folder in datasets:
        pages = read_gold_metadata(folder)
        for gold in pages[:limit] if limit else pages:
            try:
                html = gold.html_path.read_bytes()
            except OSError as exc:
                raise DatasetError(f"{gold.id}: cannot read the page: {exc}") from exc
            for name, extractor in extractors.items():
                try:
                    predicted = extractor(html, gold.url)
                except Exception:  # a peer crashing on a page scores empty, as a user sees it
                    summaries[name].errors += 1
                    predicted = PredictedMetadata()
                summaries[name].scores.append(score_page(gold, predicted))
    return list(summaries.values())


def _percent(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:5.1f}%"


def format_metadata_report(summaries: list[ExtractorSummary]) -> str:
    """The overall table, then failures by language group."""
    lines = [
        f"{'extractor':<13} {'pages':>5} {'title':>7} {'day':>7} {'minute':>7} "
        f"{'authorF1':>8} {'junk':>5} {'lang':>7} {'errors':>6}"
    ]
    for s in summaries:
        lines.append(
            f"{s.name:<13} {len(s.scores):>5} {_percent(s.rate('title')):>7} "
            f"{_percent(s.rate('date_day')):>7} {_percent(s.rate('date_minute')):>7} "
            f"{s.mean_author_f1():>8.3f} {s.junk_pages():>5} {_percent(s.rate('language')):>7} "
            f"{s.errors:>6}"
        )
    lines += ["", "Failing pages by language group (title/day/minute/authors/language):"]
    for s in summaries:
        for group, counts in s.failures_by_group().items():
            failed = "/".join(str(counts[name]) for name in
                              ("title", "date_day", "date_minute", "authors", "language"))
            lines.append(f"{s.name:<13} {group:<16} {counts['pages']:>4} pages  {failed}")
    return "\n".join(lines) + "\n"


def build_metadata_json(summaries: list[ExtractorSummary]) -> dict[str, Any]:
    """The scores as JSON: overall figures, failures by group and each page's failures."""
    return {
        s.name: {
            "version": peer_version(s.name) if s.name != "newscrawl" else "",
            "pages": len(s.scores),
            "title": s.rate("title"),
            "date_day": s.rate("date_day"),
            "date_minute": s.rate("date_minute"),
            "author_f1": s.mean_author_f1(),
            "junk_pages": s.junk_pages(),
            "language": s.rate("language"),
            "errors": s.errors,
            "by_lang_group": s.failures_by_group(),
            "failing_pages": {
                score.id: {"fields": score.failures(), "junk": score.junk_authors}
                for score in s.scores if score.failures()
            },
        }
        for s in summaries
    }
