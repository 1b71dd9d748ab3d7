"""Every stats key is declared once in stats_keys.py and named newscrawl/<component>/<event>."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from newscrawl import stats_keys
from newscrawl.stats_keys import (
    RSS_SPIDER_KEYS,
    SCRAPY_KEYS,
    SITEMAP_SPIDER_KEYS,
    build_quality_key,
    count_event,
    sum_stats,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
SCANNED_DIRS = ("newscrawl", "spiders", "bench")
KEY_PATTERN = re.compile(r"newscrawl/[a-z][a-z_]*/[a-z][a-z0-9_]*")
# A quoted string (f-strings too) that names a newscrawl stats key, whole or in part.
KEY_LITERAL = re.compile(r"""[fFrRbB]?["']newscrawl/[\w{}.]+/[\w{}./]+["']""")


def list_key_constants() -> dict[str, str]:
    """The module's string constants: name -> key."""
    return {
        name: value
        for name, value in vars(stats_keys).items()
        if name.isupper() and isinstance(value, str)
    }


def test_every_constant_is_a_component_event_key() -> None:
    constants = list_key_constants()
    assert len(constants) > 50
    for name, key in constants.items():
        if key in SCRAPY_KEYS:
            continue
        assert KEY_PATTERN.fullmatch(key), f"{name} = {key!r}"


def test_constants_are_unique() -> None:
    keys = list(list_key_constants().values())
    duplicates = {key for key in keys if keys.count(key) > 1}
    assert not duplicates


def test_the_key_tables_hold_declared_constants_only() -> None:
    declared = set(list_key_constants().values())
    tables: list[Mapping[object, object]] = [
        value
        for name, value in vars(stats_keys).items()
        if name.isupper() and isinstance(value, Mapping)
    ]
    assert tables
    for table in tables:
        for value in table.values():
            nested = value.values() if isinstance(value, Mapping) else [value]
            assert set(nested) <= declared
    for spider_keys in (RSS_SPIDER_KEYS, SITEMAP_SPIDER_KEYS):
        assert set(vars(spider_keys).values()) <= declared
    assert set(stats_keys.SOURCE_READ_KEYS) | set(stats_keys.SOURCE_FAILED_KEYS) <= declared


def test_no_key_literal_outside_the_module() -> None:
    module = REPO_ROOT / "newscrawl" / "stats_keys.py"
    found = []
    for directory in SCANNED_DIRS:
        for path in sorted((REPO_ROOT / directory).rglob("*.py")):
            if path == module:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if KEY_LITERAL.search(line):
                    found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_no_other_stats_increment_outside_the_helper() -> None:
    found = []
    for directory in SCANNED_DIRS:
        for path in sorted((REPO_ROOT / directory).rglob("*.py")):
            if path.name == "stats_keys.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if ".inc_value(" in line:
                    found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_count_event_adds_and_tolerates_missing_stats() -> None:
    stats = MemoryStatsCollector(get_crawler())
    count_event(stats, stats_keys.RSS_ENTRY)
    count_event(stats, stats_keys.RSS_ENTRY, 4)
    count_event(None, stats_keys.RSS_ENTRY)
    assert stats.get_value(stats_keys.RSS_ENTRY) == 5


def test_sum_stats_and_quality_keys() -> None:
    stats = {stats_keys.RSS_PAGE_FETCHED: 3, stats_keys.SITEMAP_PAGE_FETCHED: 2}
    assert sum_stats(stats, stats_keys.PAGE_FETCHED_KEYS.values()) == 5
    assert build_quality_key("a.example", "short") == "newscrawl/quality/a.example/short"
