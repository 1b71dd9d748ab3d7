"""Pages, their sites and feeds, and the templates learned from them."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Row, Select, Table, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from newscrawl.storage.compression import BODY_COMPRESSION, compress_body, decompress_body
from newscrawl.storage.deferred_writes import deferred_writes, flush_closed_pages
from newscrawl.storage.models import Feed, Page, Template
from newscrawl.storage.records import (
    Admission,
    LearnedTemplate,
    PageRecord,
    PendingGroup,
    StoredPage,
    TemplateKey,
    TemplateRecord,
)
from newscrawl.storage.upsert import build_upsert, prepare_upsert

# First key of the two-key advisory lock that serialises template learning per group.
TEMPLATE_LOCK_CLASS = 3
# pages.error keeps the start of a failure reason.
MAX_ERROR_CHARS = 2000


def _now() -> datetime:
    return datetime.now(UTC)


FEED_UPSERT = prepare_upsert(
    Feed.__table__,  # type: ignore[arg-type]
    conflict_columns=["url"],
    columns=["url", "site", "category", "first_seen_at"],
    update_columns=[],
)
PAGE_UPSERT = prepare_upsert(
    Page.__table__,  # type: ignore[arg-type]
    conflict_columns=["url"],
    returning=["id"],
)

PAGES: Table = Page.__table__  # type: ignore[assignment]
TEMPLATES: Table = Template.__table__  # type: ignore[assignment]
# Core statements built once: building them per page cost SQLAlchemy more than running them.
TEMPLATE_STATE = select(
    *(column for column in TEMPLATES.c if column.name not in ("id", "template"))
).where(TEMPLATES.c.group_key == bindparam("group_key"))
TEMPLATE_ROW = select(*(column for column in TEMPLATES.c if column.name != "id")).where(
    TEMPLATES.c.group_key == bindparam("group_key")
)
FAIL_PAGE = (
    update(PAGES)
    .where(PAGES.c.id == bindparam("page_id"))
    .values(status="failed", error=bindparam("reason"), updated_at=bindparam("now"))
)


def _build_group_count(*conditions: Any) -> Select[int]:
    """Count at most :limit pages of group :group_key matching `conditions`."""
    inner = (
        select(PAGES.c.id)
        .where(PAGES.c.group_key == bindparam("group_key"), *conditions)
        .limit(bindparam("limit"))
    )
    return select(func.count()).select_from(inner.subquery())


def _with_pages_since(statement: Select[Any]) -> Select[Any]:
    """`statement` on the templates row, with at most :limit pages of the group stored after
    the template's newest one: the template and its age in one round trip, not two."""
    inner = (
        select(PAGES.c.id)
        .where(
            PAGES.c.group_key == bindparam("group_key"),
            PAGES.c.id > TEMPLATES.c.last_page_id,
        )
        .limit(bindparam("limit"))
        .correlate(TEMPLATES)
    )
    since = select(func.count()).select_from(inner.subquery()).scalar_subquery()
    return statement.add_columns(since.label(PAGES_SINCE))


PAGES_SINCE = "pages_since"
COUNT_PENDING = _build_group_count(PAGES.c.status == "pending")
TEMPLATE_STATE_SINCE = _with_pages_since(TEMPLATE_STATE)
TEMPLATE_ROW_SINCE = _with_pages_since(TEMPLATE_ROW)


def upsert_page(
    session: Session, page: PageRecord, *, status: str = "pending", error: str | None = None
) -> int:
    """Store a page (and its site and feed) by URL and return its id; a re-crawl overwrites it."""
    now = _now()
    deferred = deferred_writes(session)
    # A batch of pages shares a few sites and feeds: each row once per transaction. The site
    # row is upserted at the commit (storage/deferred_writes.py), with the first page's time,
    # so that concurrent batches do not queue for its lock.
    deferred.sites.setdefault(page.site, now)
    written = deferred.written
    if page.feed_url and ("feed", page.feed_url) not in written:
        FEED_UPSERT.execute(
            session,
            {
                "url": page.feed_url,
                "site": page.site,
                "category": page.category,
                "first_seen_at": now,
            },
        )
        written.add(("feed", page.feed_url))
    values: dict[str, Any] = {
        "url": page.url,
        "site": page.site,
        "category": page.category,
        "group_key": page.group_key,
        "body": compress_body(page.body),
        "body_compression": BODY_COMPRESSION,
        "encoding": page.encoding,
        "title": page.title,
        "feed_url": page.feed_url,
        "published_at": page.published_at,
        "authors": list(page.authors),
        "keywords": list(page.keywords),
        "http_status": page.http_status,
        "fetched_at": page.fetched_at,
        "status": status,
        "error": None if error is None else error[:MAX_ERROR_CHARS],
        "updated_at": now,
    }
    page_id = int(PAGE_UPSERT.execute(session, values).scalar_one())
    # The row now has this write's status, not that of a close deferred before it.
    deferred.closed_pages.pop(page_id, None)
    return page_id


def write_admission(
    session: Session,
    page: PageRecord,
    *,
    count_limit: int,
    known_templates: Container[TemplateKey] = (),
) -> Admission:
    """Store a page as pending and read its group's template and pending count (at most
    `count_limit`: only "at least N" matters, so a big group is not counted in full).

    The template's blob is left out (None) when its key is in `known_templates`: the caller
    already holds that version decoded, and the blob is the bulk of the row.
    """
    page_id = upsert_page(session, page)
    connection = session.connection()
    key = {"group_key": page.group_key, "limit": count_limit}
    state = connection.execute(TEMPLATE_STATE_SINCE, key).one_or_none()
    if state is not None and (page.group_key, state.learned_at) not in known_templates:
        # A version the caller does not hold (new, or re-learned by another worker): with its blob.
        state = connection.execute(TEMPLATE_ROW_SINCE, key).one_or_none()
    if state is None:
        # Pages closed by this transaction must not count as pending.
        flush_closed_pages(session)
        pending = connection.execute(COUNT_PENDING, key).scalar_one()
        return Admission(page_id, None, int(pending), 0)
    fields = dict(state._mapping)
    since = fields.pop(PAGES_SINCE)
    fields.setdefault("template", None)
    return Admission(page_id, TemplateRecord(**fields), 0, int(since))


def write_failed_page(
    session: Session, reason: str, *, page_id: int | None, page: PageRecord | None
) -> int:
    """Mark a stored page failed, or store a new one as failed, with its reason; return its id."""
    if page_id is None:
        if page is None:
            raise ValueError("a failed page needs its page_id or its record")
        return upsert_page(session, page, status="failed", error=reason)
    # The page fails after an article closed it earlier in this transaction: it ends failed.
    deferred_writes(session).closed_pages.pop(page_id, None)
    session.connection().execute(
        FAIL_PAGE, {"page_id": page_id, "reason": reason[:MAX_ERROR_CHARS], "now": _now()}
    )
    return page_id


def _to_template_record(row: Template) -> TemplateRecord:
    return TemplateRecord(
        group_key=row.group_key,
        site=row.site,
        category=row.category,
        template=row.template,
        format_version=row.format_version,
        page_count=row.page_count,
        last_page_id=row.last_page_id,
        config_version=row.config_version,
        learned_at=row.learned_at,
    )


def _to_stored_page(row: Row[Any]) -> StoredPage:
    record = PageRecord(
        url=row.url,
        site=row.site,
        category=row.category,
        body=decompress_body(row.body, row.body_compression),
        fetched_at=row.fetched_at,
        encoding=row.encoding,
        title=row.title,
        feed_url=row.feed_url,
        published_at=row.published_at,
        authors=list(row.authors or []),
        keywords=list(row.keywords or []),
        http_status=row.http_status,
    )
    return StoredPage(id=row.id, record=record, status=row.status)


class PageRepository:
    """Durable neighbour buffer: pending pages per group and the group templates."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def admit_page(self, page: PageRecord, *, count_limit: int) -> Admission:
        """Store a page as pending and report its group's template and pending count."""
        with Session(self.engine) as session, session.begin():
            return write_admission(session, page, count_limit=count_limit)

    def store_page(self, page: PageRecord, *, status: str = "pending") -> int:
        """Store a page by URL with the given status and return its id."""
        with Session(self.engine) as session, session.begin():
            return upsert_page(session, page, status=status)

    def get_template(self, group_key: str) -> TemplateRecord | None:
        """The stored template of a group, if any."""
        with Session(self.engine) as session:
            row = session.scalars(select(Template).where(Template.group_key == group_key)).first()
            return None if row is None else _to_template_record(row)

    def learn_template(
        self,
        group_key: str,
        learn: Callable[[list[tuple[bytes, str | None]]], LearnedTemplate],
        *,
        max_pages: int,
        min_pages: int,
        replaces: datetime | None,
    ) -> TemplateRecord | None:
        """Learn and store the group's template from its newest pages, once across workers.

        `learn` gets (body, encoding) pairs. `replaces` is the `learned_at` of the template
        the caller found stale (None if it found none); if another worker stored a newer one
        meanwhile, that one is returned. Returns None when the group has fewer than
        `min_pages` pages.
        """
        with Session(self.engine) as session, session.begin():
            if session.get_bind().dialect.name == "postgresql":
                session.execute(
                    text("SELECT pg_advisory_xact_lock(:cls, hashtext(:key))"),
                    {"cls": TEMPLATE_LOCK_CLASS, "key": group_key},
                )
            current = session.scalars(
                select(Template).where(Template.group_key == group_key)
            ).one_or_none()
            if current is not None and (replaces is None or current.learned_at > replaces):
                return _to_template_record(current)
            rows = session.scalars(
                select(Page)
                .where(Page.group_key == group_key)
                .order_by(Page.id.desc())
                .limit(max_pages)
            ).all()
            if len(rows) < min_pages:
                return None if current is None else _to_template_record(current)
            learned = learn(
                [(decompress_body(row.body, row.body_compression), row.encoding) for row in rows]
            )
            record = TemplateRecord(
                group_key=group_key,
                site=rows[0].site,
                category=rows[0].category,
                template=learned.template,
                format_version=learned.format_version,
                page_count=learned.page_count,
                last_page_id=rows[0].id,
                config_version=learned.config_version,
                learned_at=_now(),
            )
            dialect = session.get_bind().dialect.name
            session.execute(
                build_upsert(
                    dialect,
                    Template.__table__,  # type: ignore[arg-type]
                    asdict(record),
                    conflict_columns=["group_key"],
                )
            )
            return record

    def list_template_pages(self, template: TemplateRecord) -> set[int]:
        """Ids of the pages a template was learned from (as `learn_template` picked them)."""
        statement = (
            select(PAGES.c.id)
            .where(PAGES.c.group_key == template.group_key, PAGES.c.id <= template.last_page_id)
            .order_by(PAGES.c.id.desc())
            .limit(template.page_count)
        )
        with self.engine.connect() as connection:
            return set(connection.scalars(statement))

    def list_pending_groups(self) -> list[PendingGroup]:
        """Every group that has pages waiting for extraction."""
        statement = (
            select(Page.group_key, Page.site, Page.category, func.count())
            .where(Page.status == "pending")
            .group_by(Page.group_key, Page.site, Page.category)
            .order_by(Page.group_key)
        )
        with Session(self.engine) as session:
            return [
                PendingGroup(group_key, site, category, int(count))
                for group_key, site, category, count in session.execute(statement)
            ]

    def count_pending_pages(self) -> dict[str, int]:
        """Pending pages per group key."""
        return {group.group_key: group.pending for group in self.list_pending_groups()}

    def load_pending_pages(
        self, group_key: str, *, after_id: int | None = None, limit: int | None = None
    ) -> list[StoredPage]:
        """Pending pages of a group, oldest first, after `after_id` (keyset paging)."""
        statement = (
            select(*PAGES.c)
            .where(PAGES.c.group_key == group_key, PAGES.c.status == "pending")
            .order_by(PAGES.c.id)
        )
        if after_id is not None:
            statement = statement.where(PAGES.c.id > after_id)
        if limit is not None:
            statement = statement.limit(limit)
        # Core rows: a flush loads every buffered page, and ORM objects cost more than the read.
        with self.engine.connect() as connection:
            return [_to_stored_page(row) for row in connection.execute(statement)]

    def load_pages(self, page_ids: Sequence[int]) -> list[StoredPage]:
        """Pages by id, in id order."""
        statement = select(*PAGES.c).where(PAGES.c.id.in_(list(page_ids))).order_by(PAGES.c.id)
        with self.engine.connect() as connection:
            return [_to_stored_page(row) for row in connection.execute(statement)]

    def mark_page_failed(self, page_id: int, error: str) -> None:
        """Record that a page could not be extracted, and why."""
        with Session(self.engine) as session, session.begin():
            write_failed_page(session, error, page_id=page_id, page=None)
