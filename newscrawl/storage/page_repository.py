"""Pages, their sites and feeds, and the templates learned from them."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, Row, Select, Table, bindparam, func, select, text, update
from sqlalchemy.orm import Session

from newscrawl.storage.batched_write import BatchedWrite
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
from newscrawl.storage.text_normaliser import normalise_text
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
)
# One page alone: its id in the same round trip.
PAGE_UPSERT_RETURNING = prepare_upsert(
    Page.__table__,  # type: ignore[arg-type]
    conflict_columns=["url"],
    returning=["id"],
)

PAGES: Table = Page.__table__  # type: ignore[assignment]
TEMPLATES: Table = Template.__table__  # type: ignore[assignment]
# Core statements built once: building them per page cost SQLAlchemy more than running them.
PAGE_IDS = select(PAGES.c.id, PAGES.c.url).where(
    PAGES.c.url.in_(bindparam("urls", expanding=True))
)
FAIL_PAGE = (
    update(PAGES)
    .where(PAGES.c.id == bindparam("page_id"))
    .values(status="failed", error=bindparam("reason"), updated_at=bindparam("now"))
)


def _with_pages_since(statement: Select[Any]) -> Select[Any]:
    """`statement` on the templates rows of groups :group_keys, each with at most :limit pages
    of its group stored after the template's newest one, leaving out the pages :batch_ids:
    the templates and their ages in one round trip."""
    inner = (
        select(PAGES.c.id)
        .where(
            PAGES.c.group_key == TEMPLATES.c.group_key,
            PAGES.c.id > TEMPLATES.c.last_page_id,
            PAGES.c.id.not_in(bindparam("batch_ids", expanding=True)),
        )
        .limit(bindparam("limit"))
        .correlate(TEMPLATES)
    )
    since = select(func.count()).select_from(inner.subquery()).scalar_subquery()
    return statement.add_columns(since.label(PAGES_SINCE)).where(
        TEMPLATES.c.group_key.in_(bindparam("group_keys", expanding=True))
    )


PAGES_SINCE = "pages_since"
TEMPLATE_STATES_SINCE = _with_pages_since(
    select(*(column for column in TEMPLATES.c if column.name not in ("id", "template")))
)
TEMPLATE_ROWS_SINCE = _with_pages_since(
    select(*(column for column in TEMPLATES.c if column.name != "id"))
)
# At most :limit pending pages of group :group_key, leaving out the pages :batch_ids.
COUNT_PENDING_OUTSIDE = select(func.count()).select_from(
    select(PAGES.c.id)
    .where(
        PAGES.c.group_key == bindparam("group_key"),
        PAGES.c.status == "pending",
        PAGES.c.id.not_in(bindparam("batch_ids", expanding=True)),
    )
    .limit(bindparam("limit"))
    .subquery()
)


def upsert_page(
    session: Session, page: PageRecord, *, status: str = "pending", error: str | None = None
) -> int:
    """Store a page (and its site and feed) by URL and return its id; a re-crawl overwrites it."""
    (page_id,) = upsert_pages(session, [page], status=status, error=error)
    return page_id


def upsert_pages(
    session: Session,
    pages: Sequence[PageRecord],
    *,
    status: str = "pending",
    error: str | None = None,
) -> list[int]:
    """upsert_page for each of `pages`, in order, in one executemany; their ids.

    psycopg sends the rows in one pipeline of a statement it has parsed once; a multi-row
    INSERT ... RETURNING cost it more to parse (too long to be cached) than to send. The ids
    are then read by URL, in one query. A URL given twice ends with its later values.
    """
    now = _now()
    deferred = deferred_writes(session)
    # A batch of pages shares a few sites and feeds: each row once per transaction. The site
    # row is upserted at the commit (storage/deferred_writes.py), with the first page's time,
    # so that concurrent batches do not queue for its lock.
    written = deferred.written
    for page in pages:
        deferred.sites.setdefault(page.site, now)
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
    rows = [_page_values(page, status=status, error=error, now=now) for page in pages]
    if len(rows) == 1:
        page_ids = [int(PAGE_UPSERT_RETURNING.execute(session, rows[0]).scalar_one())]
    else:
        PAGE_UPSERT.execute_many(session, rows)
        urls = [page.url for page in pages]
        found = session.connection().execute(PAGE_IDS, {"urls": urls})
        ids = {url: int(page_id) for page_id, url in found}
        page_ids = [ids[normalise_text(url)] for url in urls]
    for page_id in page_ids:
        # The row now has this write's status, not that of a close deferred before it.
        deferred.closed_pages.pop(page_id, None)
    return page_ids


def _page_values(
    page: PageRecord, *, status: str, error: str | None, now: datetime
) -> dict[str, Any]:
    """The pages row of `page`, every column but the id."""
    return {
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
    return AdmissionWrite(page, count_limit, known_templates)(session)


@dataclass
class AdmissionWrite(BatchedWrite[Admission]):
    """write_admission for the BatchWriter: a batch of them is stored and read together
    (see admit_pages), then each write returns its own admission."""

    page: PageRecord
    count_limit: int
    known_templates: Container[TemplateKey] = ()
    # Set by admit_pages.
    admission: Admission | None = None

    @classmethod
    def prepare_batch(cls, session: Session, writes: Sequence[AdmissionWrite]) -> None:
        admit_pages(session, writes)

    def stored_result(self) -> Admission | None:
        return self.admission

    def finish(self, session: Session, result: Admission) -> Admission:
        # An article of the batch written before this one may have closed the page again.
        deferred_writes(session).closed_pages.pop(result.page_id, None)
        return result


def admit_pages(session: Session, writes: Sequence[AdmissionWrite]) -> None:
    """Store the pages of `writes` as pending, in one upsert, and set each write's admission.

    Each admission is what write_admission alone would have read in the writes' order: its
    group's pending count includes the pages of the group admitted before it in `writes` (not
    those after), and a template's pages since it likewise. The counts are read once per group
    for the whole batch: one statement for the templates (one more for versions a caller does
    not hold yet) and one count per group without a template.
    """
    if not writes:
        return
    page_ids = upsert_pages(session, [write.page for write in writes])
    # Pages closed by this transaction must not count as pending.
    flush_closed_pages(session)
    limit = max(write.count_limit for write in writes)
    groups = list(dict.fromkeys(normalise_text(write.page.group_key) for write in writes))
    batch_ids = sorted(set(page_ids))
    connection = session.connection()
    params = {"group_keys": groups, "batch_ids": batch_ids, "limit": limit}
    states = {row.group_key: row for row in connection.execute(TEMPLATE_STATES_SINCE, params)}
    unknown = [
        group
        for group, state in states.items()
        if any(
            normalise_text(write.page.group_key) == group
            and (write.page.group_key, state.learned_at) not in write.known_templates
            for write in writes
        )
    ]
    if unknown:
        # Versions a caller does not hold (new, or re-learned by another worker): with blobs.
        params_unknown = params | {"group_keys": unknown}
        for row in connection.execute(TEMPLATE_ROWS_SINCE, params_unknown):
            states[row.group_key] = row
    # One count per group without a template (a prepared statement each).
    pending_before = {
        group: int(
            connection.execute(COUNT_PENDING_OUTSIDE, params | {"group_key": group}).scalar_one()
        )
        for group in groups
        if group not in states
    }
    # The batch's own pages of each group, counted as each write would have seen them.
    admitted: dict[str, set[int]] = {}
    since_template: dict[str, set[int]] = {}
    transaction = session.get_transaction()
    for write, page_id in zip(writes, page_ids, strict=True):
        group = normalise_text(write.page.group_key)
        admitted.setdefault(group, set()).add(page_id)
        state = states.get(group)
        write.stored_in = transaction
        if state is None:
            pending = min(pending_before[group] + len(admitted[group]), write.count_limit)
            write.admission = Admission(page_id, None, pending, 0)
            continue
        newer = since_template.setdefault(group, set())
        if page_id > state.last_page_id:
            newer.add(page_id)
        fields = dict(state._mapping)
        since = min(int(fields.pop(PAGES_SINCE)) + len(newer), write.count_limit)
        fields.setdefault("template", None)
        if (write.page.group_key, state.learned_at) in write.known_templates:
            # The caller holds this version decoded: the blob is the bulk of the row.
            fields["template"] = None
        write.admission = Admission(page_id, TemplateRecord(**fields), 0, since)


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
