"""Every NEWSCRAWL_* setting the code reads has one default, in newscrawl/settings.py, and a row
in the README's settings table; call sites fall back to that default instead of repeating it."""

from __future__ import annotations

import re
from pathlib import Path

from newscrawl import settings as project_settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = (REPO_ROOT / "newscrawl", REPO_ROOT / "spiders")
SETTING_NAME = re.compile(r"\bNEWSCRAWL_[A-Z0-9_]*[A-Z0-9]\b")
# settings.getX("NEWSCRAWL_...", <fallback>): the fallback must be the declared default.
SETTING_READ = re.compile(r"\.get(?:int|float|bool|list|dict)?\(\s*\"(NEWSCRAWL_\w+)\",\s*([^,)]+)")
# Absent means 0 here on purpose: crawlers built without the project settings extract inline
# (pipelines/extraction_config.py says why); crawls get the declared default, 1.
OWN_FALLBACK = {"NEWSCRAWL_EXTRACTION_WORKERS"}
# Environment variables, not Scrapy settings: read at import, before any settings exist.
ENVIRONMENT_VARIABLES = {"NEWSCRAWL_PURE_PYTHON"}


def list_source_files() -> list[Path]:
    return sorted(
        path
        for directory in SOURCE_DIRS
        for path in directory.rglob("*.py")
        if path.name != "settings.py" or path.parent.name != "newscrawl"
    )


def find_setting_names() -> set[str]:
    found = {
        name for path in list_source_files() for name in SETTING_NAME.findall(path.read_text())
    }
    return found - ENVIRONMENT_VARIABLES


def read_settings_table() -> str:
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_the_scan_finds_the_settings_the_code_reads() -> None:
    names = find_setting_names()
    # A scan that finds nothing would pass every check below.
    assert {"NEWSCRAWL_DATABASE_URL", "NEWSCRAWL_NEIGHBOURS", "NEWSCRAWL_POLL_TICK"} <= names


def test_every_setting_read_has_a_default_in_settings_py() -> None:
    missing = sorted(name for name in find_setting_names() if not hasattr(project_settings, name))
    assert missing == []


def test_every_setting_read_has_a_row_in_the_readme_table() -> None:
    table = read_settings_table()
    missing = sorted(name for name in find_setting_names() if f"`{name}`" not in table)
    assert missing == []


def test_call_sites_fall_back_to_the_declared_default() -> None:
    repeated = [
        f"{path.relative_to(REPO_ROOT)}: {name} falls back to {fallback.strip()}"
        for path in list_source_files()
        for name, fallback in SETTING_READ.findall(path.read_text())
        if name not in OWN_FALLBACK and fallback.strip() != f"project_settings.{name}"
    ]
    assert repeated == []


def test_the_database_url_default_is_written_once() -> None:
    default = project_settings.DEFAULT_DATABASE_URL
    quoted = re.compile(rf"[\"']{re.escape(default)}[\"']")
    places = [
        str(path.relative_to(REPO_ROOT))
        for path in [*list_source_files(), REPO_ROOT / "newscrawl" / "settings.py"]
        if quoted.search(path.read_text())
    ]
    assert places == ["newscrawl/settings.py"]
