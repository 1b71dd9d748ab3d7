"""One switch between the compiled loops and pure Python, and the same articles either way."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import lxml.etree
import pytest

from newscrawl.extraction import (
    block_features,
    block_hints,
    block_scorer,
    compiled_loops,
    document,
    dynamic_noise,
    extract,
    static_noise,
    word_tokens,
)
from newscrawl.extraction.compiled_loops import PURE_PYTHON_VARIABLE, is_pure_python_requested
from newscrawl.extraction.metadata import page_index
from tests.extraction.compiled_twins import needs_compiled_loops

REPOSITORY = Path(__file__).resolve().parents[2]
# Each module-level flag that says a stage runs compiled code.
STAGE_FLAGS = {
    "document.COMPILED_WALK": lambda: document.COMPILED_WALK,
    "page_index.COMPILED_SCAN": lambda: page_index.COMPILED_SCAN,
    "dynamic_noise.COMPILED_LCA": lambda: dynamic_noise.COMPILED_LCA,
    "word_tokens.COMPILED_SCAN": lambda: word_tokens.COMPILED_SCAN,
    "static_noise.COMPILED_KEYS": lambda: static_noise.COMPILED_KEYS,
    "block_scorer.COMPILED_TREES": lambda: block_scorer.COMPILED_TREES,
    "block_features.COMPILED_ROWS": lambda: block_features.COMPILED_ROWS,
}
PAGE = (
    "<html><head><title>Bridge repairs approved | The Courier</title>"
    '<meta name="author" content="Ann Lee"></head><body>'
    '<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>'
    "<article><h1>Bridge repairs approved</h1>"
    "<p>The council met on Tuesday to approve the budget for the coming year, after a long "
    "debate about the cost of repairing the old river bridge.</p>"
    "<p>Several members asked for more money for schools and libraries, and the mayor "
    "said the <b>bridge</b> would reopen in <a href='/spring'>spring</a>.</p></article>"
    "<aside><ul><li><a href='/a'>Another story</a></li><li><a href='/b'>More news</a></li>"
    "</ul></aside><footer>Copyright The Courier</footer></body></html>"
)
# Prints the flags, the article of PAGE, and every field of the articles of tricky and generated
# pages (single-page and with a template from their neighbours), as the process sees them.
REPORT = """
import dataclasses, json, sys
from newscrawl.extraction import compiled_loops, extract, learn_static_noise
from tests.extraction.fixtures.neighbour_sites import generate_site
from tests.extraction.test_compiled_loops import PAGE, STAGE_FLAGS
from tests.extraction.test_compiled_walk import TRICKY_PAGES
article = extract(PAGE, url="https://courier.example/news/bridge", title="Bridge repairs approved")
others = [dataclasses.asdict(extract(html)) for html in TRICKY_PAGES]
for layout in ("classic", "divs"):
    site = generate_site(3, pages=5, layout=layout)
    for page in site:
        template = learn_static_noise([p.html for p in site if p is not page])
        for used in (None, template):
            found = extract(page.html, title=page.title, template=used)
            others.append(dataclasses.asdict(found))
json.dump({
    "compiled": compiled_loops.COMPILED,
    "reason": compiled_loops.PURE_PYTHON_REASON,
    "flags": {name: flag() for name, flag in STAGE_FLAGS.items()},
    "article": dataclasses.asdict(article),
    "others": others,
}, sys.stdout, default=str)
"""


def run_report(pure: str | None) -> dict[str, object]:
    """The report of a fresh interpreter, with NEWSCRAWL_PURE_PYTHON set to `pure` or unset."""
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON_VARIABLE}
    if pure is not None:
        env[PURE_PYTHON_VARIABLE] = pure
    done = subprocess.run(
        [sys.executable, "-c", REPORT], cwd=REPOSITORY, env=env, capture_output=True, text=True,
        check=True,
    )
    report: dict[str, object] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize(
    ("value", "requested"),
    [(None, False), ("", False), ("0", False), (" 0 ", False), ("1", True), ("yes", True)],
)
def test_pure_python_is_requested_by_any_value_but_empty_or_zero(
    value: str | None, requested: bool
) -> None:
    environ = {} if value is None else {PURE_PYTHON_VARIABLE: value}
    assert is_pure_python_requested(environ) is requested


@needs_compiled_loops
def test_every_compiled_loop_is_built_and_active() -> None:
    # A build that silently fell back to Python must fail here, not just run slower.
    assert compiled_loops.COMPILED, compiled_loops.PURE_PYTHON_REASON
    assert {name: flag() for name, flag in STAGE_FLAGS.items()} == dict.fromkeys(STAGE_FLAGS, True)
    assert isinstance(block_hints.marker_flags, compiled_loops.block_rows.MarkerHints)
    assert block_features._compiled_ancestor_flags is compiled_loops.node_walk.ancestor_flags
    # The two modules that read libxml2's nodes refuse another lxml major (`_block_rows` does not
    # read them).
    for module in (compiled_loops.node_walk, compiled_loops.static_keys):
        assert module.BUILT_FOR_LXML.split(".")[0] == lxml.etree.__version__.split(".")[0]


def test_setup_builds_exactly_the_modules_the_switch_loads() -> None:
    setup = ast.parse((REPOSITORY / "setup.py").read_text())
    built = next(
        ast.literal_eval(node.value)
        for node in setup.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets)
    )
    switch = ast.parse(Path(compiled_loops.__file__).read_text())
    loaded = {
        alias.name
        for node in ast.walk(switch)
        if isinstance(node, ast.ImportFrom) and node.module == "newscrawl.extraction"
        for alias in node.names
    }
    assert set(built) == loaded


def test_the_environment_switches_every_stage_to_python_with_the_same_article() -> None:
    pure = run_report("1")
    assert pure["compiled"] is False
    assert pure["reason"] == f"{PURE_PYTHON_VARIABLE} is set"
    assert pure["flags"] == dict.fromkeys(STAGE_FLAGS, False)
    default = run_report(None)
    assert default["compiled"] is compiled_loops.COMPILED or is_pure_python_requested()
    assert pure["article"] == default["article"]
    assert pure["others"] == default["others"]
    assert isinstance(default["others"], list) and len(default["others"]) > 20
    article = pure["article"]
    assert isinstance(article, dict)
    assert "repairing the old river bridge" in article["text"]
    assert "Another story" not in article["text"]


def test_this_process_extracts_what_the_report_says() -> None:
    # The subprocess report is the same extraction as an in-process call, not a stand-in.
    mine = extract(PAGE, url="https://courier.example/news/bridge", title="Bridge repairs approved")
    article = run_report(os.environ.get(PURE_PYTHON_VARIABLE))["article"]
    assert isinstance(article, dict)
    assert article["text"] == mine.text
