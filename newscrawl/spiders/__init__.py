"""The project's spiders, as `newscrawl.spiders`.

In a checkout they live in the top-level spiders/ directory, so this package points there; a
built wheel carries that directory here instead (pyproject.toml's package-dir), and this file
is not part of it.
"""

from pathlib import Path

__path__ = [str(Path(__file__).resolve().parents[2] / "spiders")]
