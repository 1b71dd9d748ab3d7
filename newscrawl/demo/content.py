"""Deterministic articles of the demo news network: titles, gold paragraphs, authors, dates."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property

# Every demo date is relative to this instant, never to the clock, so runs are identical.
NETWORK_EPOCH = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)

TOPICS: dict[str, tuple[str, ...]] = {
    "world": ("ceasefire", "embassy", "summit", "refugees", "border", "sanctions", "election"),
    "business": ("inflation", "merger", "shareholders", "tariffs", "startup", "earnings", "bonds"),
    "sport": ("championship", "striker", "marathon", "coach", "stadium", "transfer", "final"),
    "tech": ("chipmaker", "encryption", "satellite", "robotics", "software", "battery", "browser"),
    "local": ("council", "library", "tramline", "bakery", "festival", "harbour", "school"),
    "politics": ("parliament", "minister", "budget", "coalition", "referendum", "senate", "reform"),
    "culture": ("orchestra", "novelist", "exhibition", "theatre", "film", "museum", "poetry"),
    "science": ("telescope", "vaccine", "glacier", "genome", "fusion", "fossil", "neutrino"),
    "gadgets": ("smartphone", "headphones", "laptop", "smartwatch", "camera", "console", "drone"),
    "opinion": ("columnist", "democracy", "housing", "pensions", "privacy", "commute", "taxes"),
}

ADJECTIVES = (
    "unexpected", "cautious", "ambitious", "fragile", "decisive", "quiet", "costly", "rapid",
    "historic", "modest", "controversial", "crucial", "lengthy", "fresh", "sharp", "steady",
)
VERBS = (
    "delayed", "approved", "rejected", "expanded", "questioned", "welcomed", "announced",
    "defended", "revised", "launched", "criticised", "examined", "secured", "halted",
)
VERBS_BASE = (
    "delay", "approve", "reject", "expand", "question", "welcome", "announce", "defend",
    "revise", "launch", "examine", "secure", "halt", "review",
)
NOUNS = (
    "plan", "proposal", "deal", "report", "decision", "investigation", "agreement", "strategy",
    "forecast", "programme", "inquiry", "contract", "policy", "timetable", "estimate",
)
PLACES = (
    "Northbridge", "Lakeside", "Port Elena", "Valmont", "Eastcliff", "Greyhaven", "Solbury",
    "Marrowdale", "Kestrel Bay", "Ashford Vale",
)
ROLES = ("spokesperson", "analyst", "director", "researcher", "official", "adviser", "economist")
ORGS = (
    "regional authority", "national institute", "city council", "trade association",
    "university", "federation", "agency", "foundation",
)
TIMES = (
    "next spring", "within weeks", "by the end of the year", "before the winter", "this month",
    "in the coming days", "over the summer",
)
FIRST_NAMES = (
    "Amira", "Jonas", "Priya", "Mateo", "Ingrid", "Kwame", "Lucia", "Tomasz", "Hana", "Oliver",
    "Sofia", "Rafael", "Yuki", "Elena", "Darius", "Nadia",
)
SURNAMES = (
    "Okafor", "Lindqvist", "Ramirez", "Novak", "Haddad", "Fischer", "Moreau", "Tanaka",
    "Brennan", "Kowalski", "Silva", "Achebe", "Larsen", "Petrova",
)
COMMENT_LINES = (
    "I have been saying this for years and nobody listened.",
    "Does anyone know where the original figures came from?",
    "Great piece, thanks for covering this properly.",
    "This is exactly why people stop trusting the headlines.",
    "My neighbour works there and tells a very different story.",
    "Interesting, but the article leaves out the most important part.",
    "Finally some good news this week.",
    "We will see how long that promise lasts.",
)


@dataclass(frozen=True)
class DemoArticle:
    """One generated article; `paragraphs` is exactly the text an extractor should return."""

    site_key: str
    category: str
    slug: str
    title: str
    paragraphs: tuple[str, ...]
    authors: tuple[str, ...]
    published: datetime
    keywords: tuple[str, ...]

    @property
    def path(self) -> str:
        """The article's URL path on its site."""
        return f"/{self.category}/{self.slug}.html"

    @property
    def gold_text(self) -> str:
        """The article text as the extraction contract formats it: blank-line separated."""
        return "\n\n".join(self.paragraphs)

    @property
    def summary(self) -> str:
        """The first sentence, as used in feeds and teasers."""
        first = self.paragraphs[0]
        end = first.find(". ")
        return first if end < 0 else first[: end + 1]


@dataclass(frozen=True)
class DemoSite:
    """A demo site: a name, a layout and its articles, newest first."""

    key: str
    name: str
    layout: str
    categories: tuple[str, ...]
    articles: tuple[DemoArticle, ...]

    def find_article(self, path: str) -> DemoArticle | None:
        """Return the article served at `path`, if any."""
        return self._by_path.get(path)

    def articles_in(self, category: str) -> tuple[DemoArticle, ...]:
        """Return the articles of one category, newest first."""
        return self._by_category.get(category, ())

    @cached_property
    def _by_path(self) -> dict[str, DemoArticle]:
        return {article.path: article for article in self.articles}

    @cached_property
    def _by_category(self) -> dict[str, tuple[DemoArticle, ...]]:
        groups: dict[str, list[DemoArticle]] = {}
        for article in self.articles:
            groups.setdefault(article.category, []).append(article)
        return {category: tuple(articles) for category, articles in groups.items()}


# (key, name, layout, {category: article count}); some groups stay under the
# neighbour buffer's 10 pages on purpose, to exercise partial groups.
SITE_SPECS: tuple[tuple[str, str, str, dict[str, int]], ...] = (
    ("ledger", "The Daily Ledger", "ledger", {"world": 14, "business": 12, "sport": 12, "tech": 4}),
    ("metro", "Metro Wire", "metro", {"local": 13, "politics": 12, "culture": 5}),
    ("courier", "Science Courier", "courier", {"science": 12, "gadgets": 12, "opinion": 3}),
)


def build_network(seed: int = 2026, scale: int = 1) -> tuple[DemoSite, ...]:
    """Return the demo sites; the same seed and scale always give the same articles.

    `scale` multiplies every group's article count, for benchmarks that need more pages.
    """
    sites: list[DemoSite] = []
    for key, name, layout, counts in SITE_SPECS:
        articles: list[DemoArticle] = []
        for category, count in counts.items():
            for index in range(count * scale):
                rng = random.Random(f"{seed}/{key}/{category}/{index}")
                articles.append(build_article(rng, key, category, index))
        articles.sort(key=lambda a: (a.published, a.slug), reverse=True)
        sites.append(DemoSite(key, name, layout, tuple(counts), tuple(articles)))
    return tuple(sites)


def build_article(rng: random.Random, site_key: str, category: str, index: int) -> DemoArticle:
    """Generate one article whose paragraphs keep returning to the title's topic."""
    topic, second = rng.sample(TOPICS[category], 2)
    place = rng.choice(PLACES)
    title = (
        f"{place} {topic} {rng.choice(NOUNS)} {rng.choice(VERBS)} "
        f"as {second} talks {rng.choice(('stall', 'resume', 'falter', 'advance'))}"
    )
    title = title[0].upper() + title[1:]
    paragraphs = tuple(
        build_paragraph(rng, topic, second, place) for _ in range(rng.randint(5, 9))
    )
    authors = tuple(build_name(rng) for _ in range(1 if rng.random() < 0.75 else 2))
    published = NETWORK_EPOCH - timedelta(minutes=rng.randint(30, 60 * 24 * 45))
    slug = f"{topic}-{place.lower().replace(' ', '-')}-{index}"
    return DemoArticle(
        site_key=site_key,
        category=category,
        slug=slug,
        title=title,
        paragraphs=paragraphs,
        authors=authors,
        published=published,
        keywords=(topic, second, place),
    )


def build_paragraph(rng: random.Random, topic: str, second: str, place: str) -> str:
    """Generate a paragraph of three to five sentences about the article's topic."""
    makers = (build_statement, build_quote, build_context)
    sentences = [rng.choice(makers)(rng, topic, second, place) for _ in range(rng.randint(3, 5))]
    return " ".join(sentences)


def build_statement(rng: random.Random, topic: str, second: str, place: str) -> str:
    """A plain news sentence."""
    return (
        f"The {rng.choice(ADJECTIVES)} {topic} {rng.choice(NOUNS)} was {rng.choice(VERBS)} "
        f"by the {rng.choice(ORGS)} in {place} after {rng.randint(2, 40)} days of "
        f"{rng.choice(ADJECTIVES)} debate about the {second}."
    )


def build_quote(rng: random.Random, topic: str, second: str, place: str) -> str:
    """A reported quote from a named source."""
    role = rng.choice(ROLES)
    article = "an" if role[0] in "aeiou" else "a"
    return (
        f"\u201cWe will {rng.choice(VERBS_BASE)} the {topic} {rng.choice(NOUNS)} "
        f"{rng.choice(TIMES)},\u201d said {build_name(rng)}, {article} {role} at the "
        f"{rng.choice(ORGS)}."
    )


def build_context(rng: random.Random, topic: str, second: str, place: str) -> str:
    """A background sentence with a figure in it."""
    return (
        f"Officials estimate that {rng.randint(3, 97)} percent of residents in {place} "
        f"expect the {second} {rng.choice(NOUNS)} to affect the {topic} {rng.choice(TIMES)}."
    )


def build_name(rng: random.Random) -> str:
    """A person's name."""
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"


def build_comments(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """Reader comments as (author, text) pairs."""
    return [
        (build_name(rng), " ".join(rng.sample(COMMENT_LINES, rng.randint(1, 3))))
        for _ in range(count)
    ]
