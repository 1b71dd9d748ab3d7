"""`newscrawl crawl` from an empty directory, its -O exports, exit status and --version."""

from __future__ import annotations

import csv
import importlib.metadata
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler

from newscrawl.article_export import ARTICLE_FIELDS
from newscrawl.cli import main
from newscrawl.demo import DemoNetworkServer
from newscrawl.exporters import ArticleJsonLinesExporter
from newscrawl.extraction import Article
from newscrawl.items import PageItem
from tests.e2e.crawl_support import REPO_ROOT


def run_newscrawl(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "newscrawl", *args], cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True, text=True, timeout=300, check=False,
    )


def test_crawl_from_an_empty_directory_exports_one_record_per_stored_article(
    tmp_path: Path,
) -> None:
    with DemoNetworkServer() as network:
        feed = next(iter(network.base_urls.values())) + "/rss.xml"
        done = run_newscrawl(
            ["crawl", "rss", "-a", f"feed={feed}", "-s", "NEWSCRAWL_SSRF_ALLOWLIST=127.0.0.1",
             "-O", "articles.jsonl", "-O", "articles.csv", "-O", "articles.json",
             "-L", "INFO"],
            tmp_path,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "not JSON serializable" not in done.stderr
    with sqlite3.connect(tmp_path / "newscrawl.db") as connection:
        stored = {url for (url,) in connection.execute("SELECT url FROM articles")}
    assert len(stored) > 10
    lines = (tmp_path / "articles.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert {record["url"] for record in records} == stored and len(records) == len(stored)
    assert all(list(record) == list(ARTICLE_FIELDS) for record in records)
    assert all(record["text"] and record["title"] for record in records)
    # The page fields: every demo page has a summary or a first paragraph.
    assert all(record["description"] for record in records)
    assert all(isinstance(record["tags"], list) for record in records)
    as_json = json.loads((tmp_path / "articles.json").read_text("utf-8"))
    assert {record["url"] for record in as_json} == stored
    with (tmp_path / "articles.csv").open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert {row["url"] for row in rows} == stored and list(rows[0]) == list(ARTICLE_FIELDS)


def test_scrapy_usage_errors_keep_their_exit_status(tmp_path: Path) -> None:
    done = run_newscrawl(["crawl", "rss", "--no-such-option"], tmp_path)
    assert done.returncode == 2
    # Scrapy's own parser judged the arguments.
    assert "scrapy crawl [options] <spider>" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_version_comes_from_the_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"newscrawl {importlib.metadata.version('newscrawl')}\n"


def export_line(item: PageItem, settings: dict[str, object]) -> str:
    output = io.BytesIO()
    exporter = ArticleJsonLinesExporter.from_crawler(
        get_crawler(Spider, settings_dict=settings), output
    )
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return output.getvalue().decode()


def test_the_exporter_writes_the_article_not_the_page() -> None:
    item = PageItem(
        url="https://example.com/a.html", site="example.com", category="world",
        body=b"<html><script>raw page</script></html>", title="Feed title",
    )
    assert export_line(item, {}) == ""  # not stored: no article
    item.article = Article(title="Headline", text="Body text.", html="<p>Body text.</p>")
    record = json.loads(export_line(item, {}))
    assert list(record) == list(ARTICLE_FIELDS)
    assert record["title"] == "Headline" and record["text"] == "Body text."
    assert "raw page" not in json.dumps(record)
    with_html = json.loads(export_line(item, {"NEWSCRAWL_EXPORT_HTML": True}))
    assert with_html["html"] == "<p>Body text.</p>"
