"""TemplateCache decodes each template version once, and knows nothing of Scrapy."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

from newscrawl.extraction import learn_static_noise
from newscrawl.pipelines.template_cache import TemplateCache
from newscrawl.storage.records import TemplateRecord
from tests.pipelines.page_factory import build_page_html

LEARNED_AT = datetime(2026, 1, 1, tzinfo=UTC)


def build_record(group: str, blob: bytes | None, minutes: int = 0) -> TemplateRecord:
    return TemplateRecord(
        group_key=group,
        site="example.org",
        category=group,
        template=blob,
        format_version=1,
        page_count=3,
        last_page_id=3,
        config_version="test",
        learned_at=LEARNED_AT + timedelta(minutes=minutes),
    )


def build_blob() -> bytes:
    pages = [build_page_html("example.org", "world", number) for number in range(3)]
    return learn_static_noise(pages).to_bytes()


def test_a_template_is_decoded_once_per_version() -> None:
    cache = TemplateCache(8, on_unreadable=lambda: None)
    blob = build_blob()
    first = cache.decode(build_record("world", blob))
    assert first is not None
    assert cache.decode(build_record("world", None)) is first
    assert build_record("world", None).key in cache
    assert cache.decode(build_record("world", None, minutes=1)) is None


def test_an_unreadable_template_is_reported_and_not_kept() -> None:
    unreadable: list[bool] = []
    cache = TemplateCache(8, on_unreadable=lambda: unreadable.append(True))
    assert cache.decode(build_record("world", b"not a template")) is None
    assert unreadable == [True]
    assert not cache.keys()


def test_a_full_cache_starts_again() -> None:
    cache = TemplateCache(1, on_unreadable=lambda: None)
    blob = build_blob()
    cache.decode(build_record("world", blob))
    cache.decode(build_record("sport", blob))
    assert build_record("sport", None).key in cache
    assert build_record("world", None).key not in cache


def test_the_cache_module_imports_no_scrapy() -> None:
    code = (
        "import sys, newscrawl.pipelines.template_cache;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
