"""Which row an extracted article belongs to: one row per article, not per URL.

- The page's canonical URL wins when it is on the same site (and not the site's home page,
  which broken sites give every page).
- URLs that differ only in their query (`x.html?src=rss`, `x.html`) and have the same text are
  one article, stored under the canonical URL, else under the URL with the shorter query.
- The same text under another path or site (a syndicated copy) gets its own row, linked by
  `duplicate_of` to the article first stored with that text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy import bindparam, or_, select
from sqlalchemy.orm import Session, SessionTransaction

from newscrawl.categories import site_from_url
from newscrawl.storage.models import Article
from newscrawl.storage.text_normaliser import normalise_text


@dataclass(frozen=True)
class ArticleIdentity:
    """Where an article goes: its URL, the row it updates (None: insert or upsert by URL),
    and the original it copies (None: it is one)."""

    url: str
    row_id: int | None = None
    duplicate_of: int | None = None


@dataclass(frozen=True)
class StoredIdentity:
    """The identifying columns of a stored article."""

    id: int
    url: str
    content_hash: str
    duplicate_of: int | None


def strip_query(url: str) -> str:
    """The URL without its query and fragment, host in lower case."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", "", ""))


def choose_canonical(url: str, canonical_url: str | None) -> str:
    """The URL to store an article under: its canonical URL when that is trustworthy."""
    if not canonical_url or canonical_url == url:
        return url
    canonical = urlsplit(canonical_url)
    if canonical.scheme not in ("http", "https") or not canonical.netloc:
        return url
    if site_from_url(canonical_url) != site_from_url(url) or canonical.path in ("", "/"):
        return url
    return canonical_url


def resolve_identity(
    url: str, canonical_url: str | None, content_hash: str, stored: list[StoredIdentity]
) -> ArticleIdentity:
    """Where an article goes, given the stored rows at its URLs or with its text."""
    preferred = choose_canonical(url, canonical_url)
    by_url = {row.url: row for row in stored}
    row = by_url.get(preferred)
    if row is not None and preferred != url and row.content_hash != content_hash and (
        strip_query(preferred) != strip_query(url)
    ):
        # The canonical URL holds another text under another path: a canonical that names
        # another article (a broken template) is not trusted.
        preferred, row = url, by_url.get(url)
    elif row is None and preferred != url:
        # Stored under its own URL before the canonical one was known: it moves.
        row = by_url.get(url)
    if row is not None:
        return ArticleIdentity(preferred, row.id, row.duplicate_of)
    same_text = sorted((r for r in stored if r.content_hash == content_hash), key=_id)
    key = strip_query(preferred)
    for row in same_text:
        if strip_query(row.url) == key:
            # The same page under another query: one article, under the better URL.
            better = preferred if _is_better(preferred, row.url, canonical_url) else row.url
            return ArticleIdentity(better, row.id, row.duplicate_of)
    # The copy points at the original, never at another copy.
    originals = [r for r in same_text if r.duplicate_of is None] or same_text
    return ArticleIdentity(preferred, None, originals[0].id if originals else None)


LOAD_IDENTITIES = select(
    Article.id, Article.url, Article.content_hash, Article.duplicate_of
).where(
    or_(
        Article.url.in_(bindparam("urls", expanding=True)),
        Article.content_hash == bindparam("content_hash"),
    )
)


LOAD_BATCH_IDENTITIES = select(
    Article.id, Article.url, Article.content_hash, Article.duplicate_of
).where(
    or_(
        Article.url.in_(bindparam("urls", expanding=True)),
        Article.content_hash.in_(bindparam("content_hashes", expanding=True)),
    )
)
# session.info key: the IdentityCache of the session's current transaction.
IDENTITY_CACHE_KEY = "newscrawl.identity_cache"


@dataclass
class IdentityCache:
    """The stored identities at the URLs and texts of a batch's articles, read once for the
    batch and kept up to date with what the batch writes, so that each article is resolved
    against what its own query would have returned."""

    transaction: SessionTransaction
    # The URLs (in the stored form) and texts whose rows are all in `rows`.
    urls: set[str]
    content_hashes: set[str]
    rows: dict[int, StoredIdentity] = field(default_factory=dict)

    def covers(self, urls: Iterable[str], content_hash: str) -> bool:
        return content_hash in self.content_hashes and all(url in self.urls for url in urls)

    def select(self, urls: set[str], content_hash: str) -> list[StoredIdentity]:
        return [
            row for row in self.rows.values() if row.url in urls or row.content_hash == content_hash
        ]


def prefetch_identities(session: Session, lookups: Iterable[tuple[Iterable[str], str]]) -> None:
    """Read the stored identities of every (URLs, content hash) lookup of a batch at once."""
    urls = {normalise_text(url) for lookup_urls, _ in lookups for url in lookup_urls}
    content_hashes = {content_hash for _, content_hash in lookups}
    if not content_hashes:
        return
    connection = session.connection()
    rows = connection.execute(
        LOAD_BATCH_IDENTITIES,
        {"urls": sorted(urls), "content_hashes": sorted(content_hashes)},
    )
    transaction = session.get_transaction()
    assert transaction is not None
    cache = IdentityCache(transaction, urls, content_hashes)
    for row in rows:
        cache.rows[row.id] = StoredIdentity(*row)
    session.info[IDENTITY_CACHE_KEY] = cache


def remember_identity(session: Session, row: StoredIdentity) -> None:
    """Record a row this transaction has just written in its batch's identity cache."""
    cache = _identity_cache(session)
    if cache is None:
        return
    row = StoredIdentity(row.id, normalise_text(row.url), row.content_hash, row.duplicate_of)
    for stale in [key for key, kept in cache.rows.items() if kept.url == row.url]:
        del cache.rows[stale]
    cache.rows[row.id] = row
    # Its URL and text are known now, whatever the batch read at first.
    cache.urls.add(row.url)


def load_identities(
    session: Session, urls: list[str], content_hash: str
) -> list[StoredIdentity]:
    """The stored articles at any of `urls` or with the given text."""
    cache = _identity_cache(session)
    if cache is not None:
        keys = {normalise_text(url) for url in urls}
        if cache.covers(keys, content_hash):
            return cache.select(keys, content_hash)
    # Core on the session's connection, one statement built once: per article stored, the
    # ORM path cost more than the query.
    rows = session.connection().execute(
        LOAD_IDENTITIES, {"urls": urls, "content_hash": content_hash}
    )
    return [StoredIdentity(*row) for row in rows]


def _identity_cache(session: Session) -> IdentityCache | None:
    cache = session.info.get(IDENTITY_CACHE_KEY)
    if not isinstance(cache, IdentityCache) or cache.transaction is not session.get_transaction():
        return None
    return cache


def _is_better(url: str, other: str, canonical_url: str | None) -> bool:
    """True when `url` names the article better than `other`: canonical, else shorter query."""
    if canonical_url is not None and url == canonical_url:
        return True
    return len(urlsplit(url).query) < len(urlsplit(other).query)


def _id(row: StoredIdentity) -> int:
    return row.id
