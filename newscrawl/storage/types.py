"""Column types shared by the models."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from newscrawl.storage.text_normaliser import normalise_text, normalise_value


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware timestamp stored in UTC; SQLite gives back naive values otherwise."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        # SQLite keeps the text as given; a fixed UTC form keeps string ordering chronological.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class NormalisedText(TypeDecorator[str]):
    """Unbounded text, stored in the one normal form of storage/text_normaliser.py.

    `text` rather than VARCHAR(n): real URLs, categories and ETags exceed any length we would
    pick, and PostgreSQL refused what SQLite kept. Applies to every bound value, so lookups
    (`url IN (...)`) find what was stored.
    """

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else normalise_text(value)


class NormalisedJson(TypeDecorator[Any]):
    """JSON whose strings (list items, dict keys and values) are normalised like text."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return normalise_value(value)
