"""The wheel's package list (pyproject.toml) names every package of the source tree."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_every_newscrawl_package_is_in_the_wheel() -> None:
    listed = set(
        tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
            "setuptools"
        ]["packages"]
    )
    on_disk = {
        ".".join(init.parent.relative_to(REPO_ROOT).parts)
        for init in (REPO_ROOT / "newscrawl").rglob("__init__.py")
    }
    assert on_disk - listed == set(), "packages missing from pyproject.toml's list"
