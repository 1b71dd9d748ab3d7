"""A durable local spool for fetched pages the database could not take.

One JSON file per page, written to a temporary name, fsynced and renamed into place, so a
crash leaves either the whole entry or none. Entries are named by a hash of the page URL,
so spooling a re-fetched page replaces its older copy, as the `pages` upsert would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from newscrawl.storage.records import PageRecord

ENTRY_SUFFIX = ".page.json"
FORMAT_VERSION = 1


class SpoolEntryError(ValueError):
    """A spool file that cannot be read back as a page."""


@dataclass(frozen=True)
class SpooledPage:
    """A page read back from the spool, with the file that holds it."""

    path: Path
    record: PageRecord


def build_spool_directory(base: Path, database_url: str) -> Path:
    """The spool of one database under `base`, so a spool is never replayed into another."""
    # The password is left out of the hash: changing it does not make another database.
    identity = make_url(database_url).render_as_string(hide_password=True)
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
    return base / digest


def encode_page_record(record: PageRecord) -> bytes:
    """A page record as JSON bytes (body base64, datetimes ISO 8601)."""
    document: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "url": record.url,
        "site": record.site,
        "category": record.category,
        "body": base64.b64encode(record.body).decode("ascii"),
        "fetched_at": record.fetched_at.isoformat(),
        "encoding": record.encoding,
        "title": record.title,
        "feed_url": record.feed_url,
        "published_at": record.published_at.isoformat() if record.published_at else None,
        "authors": list(record.authors),
        "keywords": list(record.keywords),
        "http_status": record.http_status,
    }
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


def decode_page_record(data: bytes) -> PageRecord:
    """The page record encoded by `encode_page_record`; SpoolEntryError when it is not one."""
    try:
        document = json.loads(data)
        if document.get("format_version") != FORMAT_VERSION:
            raise SpoolEntryError(f"unknown spool format {document.get('format_version')!r}")
        published = document["published_at"]
        return PageRecord(
            url=document["url"],
            site=document["site"],
            category=document["category"],
            body=base64.b64decode(document["body"], validate=True),
            fetched_at=datetime.fromisoformat(document["fetched_at"]),
            encoding=document["encoding"],
            title=document["title"],
            feed_url=document["feed_url"],
            published_at=datetime.fromisoformat(published) if published else None,
            authors=list(document["authors"]),
            keywords=list(document["keywords"]),
            http_status=int(document["http_status"]),
        )
    except SpoolEntryError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise SpoolEntryError(f"unreadable spool entry: {error!r}") from error


class PageSpool:
    """The spooled pages of one database, in one directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def spool_page(self, record: PageRecord) -> Path:
        """Write the page durably and return its file; blocking, call it from a thread."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(record.url.encode("utf-8")).hexdigest() + ENTRY_SUFFIX
        target = self.directory / name
        descriptor, temporary = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(encode_page_record(record))
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._sync_directory()
        return target

    def list_entries(self) -> list[Path]:
        """The spooled entries, oldest first."""
        if not self.directory.is_dir():
            return []
        entries = [path for path in self.directory.iterdir() if path.name.endswith(ENTRY_SUFFIX)]
        return sorted(entries, key=lambda path: (path.stat().st_mtime_ns, path.name))

    def read_entry(self, path: Path) -> SpooledPage:
        """One spooled page; SpoolEntryError when the file is damaged."""
        return SpooledPage(path=path, record=decode_page_record(path.read_bytes()))

    def set_aside_entry(self, path: Path) -> Path:
        """Rename a damaged entry so that it is kept for a human but no longer replayed."""
        target = path.with_name(path.name + ".damaged")
        os.replace(path, target)
        return target

    def remove_entry(self, path: Path) -> None:
        """Forget a page once the database holds it."""
        path.unlink(missing_ok=True)

    def _sync_directory(self) -> None:
        # The rename is only durable once the directory itself is on disk.
        descriptor = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
