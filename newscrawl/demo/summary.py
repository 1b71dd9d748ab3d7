"""The demo's closing report: what was stored, sample SQL with its results, quality against gold."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from newscrawl.evaluation.metric import score_bag_of_words

SAMPLE_QUERIES: tuple[tuple[str, str], ...] = (
    (
        "Latest articles per site",
        "SELECT site, published_at, title FROM (\n"
        "  SELECT site, published_at, title,\n"
        "         row_number() OVER (PARTITION BY site ORDER BY published_at DESC) AS n\n"
        "  FROM articles)\n"
        "WHERE n <= 3 ORDER BY site, published_at DESC",
    ),
    (
        "Full-text search (FTS5): articles about a telescope",
        "SELECT a.site, a.title FROM articles_fts\n"
        "JOIN articles a ON a.id = articles_fts.rowid\n"
        "WHERE articles_fts MATCH 'telescope' ORDER BY rank LIMIT 5",
    ),
    (
        "Articles per category and day",
        "SELECT category, date(published_at) AS day, count(*) AS articles\n"
        "FROM articles GROUP BY category, day ORDER BY day DESC, category LIMIT 10",
    ),
)


def format_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Return rows as a plain aligned text table."""
    cells = [[str(c) for c in header]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [min(max(len(row[i]) for row in cells), 70) for i in range(len(header))]
    lines = ["  ".join(c[:70].ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def query_rows(
    connection: sqlite3.Connection, sql: str
) -> tuple[list[str], list[tuple[object, ...]]]:
    """Run one query and return its column names and rows."""
    cursor = connection.execute(sql)
    return [d[0] for d in cursor.description], cursor.fetchall()


def build_summary(database: Path, gold_for_url: Callable[[str], str | None]) -> str:
    """Return the demo report for a crawled SQLite database."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        sections = [_stored_section(connection), _quality_section(connection, gold_for_url)]
        for title, sql in SAMPLE_QUERIES:
            try:
                header, rows = query_rows(connection, sql)
                result = format_table(header, rows)
            except sqlite3.Error as exc:
                result = f"(query failed: {exc})"
            sections.append(f"== {title}\n{sql};\n\n{result}")
    finally:
        connection.close()
    return "\n\n".join(sections) + "\n"


def _stored_section(connection: sqlite3.Connection) -> str:
    header, rows = query_rows(
        connection,
        "SELECT site, category, count(*) AS articles FROM articles "
        "GROUP BY site, category ORDER BY site, category",
    )
    total = sum(int(str(row[2])) for row in rows)
    _, titles = query_rows(
        connection, "SELECT site, title FROM articles ORDER BY published_at DESC LIMIT 5"
    )
    return (
        f"== Articles stored: {total}\n{format_table(header, rows)}\n\n"
        f"== Sample titles\n{format_table(['site', 'title'], titles)}"
    )


def _quality_section(
    connection: sqlite3.Connection, gold_for_url: Callable[[str], str | None]
) -> str:
    _, rows = query_rows(connection, "SELECT site, url, text, extraction_method FROM articles")
    per_site: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for site, url, text, method in rows:
        gold = gold_for_url(str(url))
        if gold is not None:
            score = score_bag_of_words(str(text or ""), gold)
            per_site[str(site)].append((score.f1, str(method)))
    table = []
    for site, scored in sorted(per_site.items()):
        f1 = sum(score for score, _ in scored) / len(scored)
        neighbours = sum(1 for _, m in scored if m == "neighbours")
        table.append((site, len(scored), f"{f1:.3f}", neighbours))
    return "== Extraction against the generated gold (bag-of-words F1)\n" + format_table(
        ["site", "articles", "mean F1", "with neighbours"], table
    )
