"""A real crawl stores one row per article: a query variant of a page merges into it, a
syndicated copy under another URL is stored and linked by duplicate_of (issue 16, item 6)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from newscrawl.storage.models import Article
from tests.e2e.crawl_support import run_crawl
from tests.hostile.corpus import Route
from tests.hostile.server import HostileServer

STORIES = {
    "harbour": "The harbour reopened on Monday after a week of repairs to the old quay.",
    "tramline": "The council approved the new tramline budget after a long debate.",
    "bridge": "Engineers found the river bridge safe after the winter floods receded.",
}


def render_page(title: str, story: str) -> bytes:
    paragraphs = "".join(
        f"<p>{story} Residents said part {n} of the work went to plan, officials added.</p>"
        for n in range(1, 7)
    )
    return (
        f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<article><h1>{title}</h1>{paragraphs}</article><footer>Copyright</footer></body></html>"
    ).encode()


def render_feed(base: str, entries: list[tuple[str, str]]) -> bytes:
    items = "".join(
        f"<item><title>{title}</title><link>{base}{path}</link></item>"
        for path, title in entries
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>{base}/</link>'
        f"{items}</channel></rss>"
    ).encode()


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with HostileServer() as started:
        base = started.base_url
        feed = [
            ("/world/harbour.html?src=rss", "Harbour"), ("/world/harbour.html", "Harbour"),
            ("/world/tramline.html", "Tramline"), ("/world/bridge.html", "Bridge"),
            ("/wire/bridge-copy.html", "Bridge"),
        ]
        started.routes = {
            "/robots.txt": Route(status=404, content_type="text/plain", body=b""),
            "/feed.xml": Route(content_type="application/rss+xml", body=render_feed(base, feed)),
            "/world/harbour.html": Route(body=render_page("Harbour", STORIES["harbour"])),
            "/world/tramline.html": Route(body=render_page("Tramline", STORIES["tramline"])),
            "/world/bridge.html": Route(body=render_page("Bridge", STORIES["bridge"])),
            "/wire/bridge-copy.html": Route(body=render_page("Bridge", STORIES["bridge"])),
        }
        yield started


def test_query_variants_merge_and_copies_are_linked(server: HostileServer, tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path / 'crawl.db'}"
    result = run_crawl(
        "rss", {"feed": f"{server.base_url}/feed.xml", "category": "world"}, database_url,
        # Every page extracted on its own, so that equal pages give equal text.
        {"NEWSCRAWL_NEIGHBOUR_BUFFER_ENABLED": "False", "NEWSCRAWL_EXTRACTION_WORKERS": "0"},
    )
    assert result.returncode == 0, result.log[-6000:]
    assert result.stat("newscrawl/rss/page_fetched") == 5

    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            rows = {a.url: (a.id, a.duplicate_of) for a in session.scalars(select(Article))}
    finally:
        engine.dispose()
    base = server.base_url
    assert set(rows) == {
        f"{base}/world/harbour.html", f"{base}/world/tramline.html",
        f"{base}/world/bridge.html", f"{base}/wire/bridge-copy.html",
    }, result.log[-6000:]
    # Fetched concurrently: whichever was stored first is the original, the other its copy.
    bridge, copy = rows[f"{base}/world/bridge.html"], rows[f"{base}/wire/bridge-copy.html"]
    assert (bridge[1], copy[1]) in ((None, bridge[0]), (copy[0], None))
    assert rows[f"{base}/world/harbour.html"][1] is None
    assert rows[f"{base}/world/tramline.html"][1] is None
