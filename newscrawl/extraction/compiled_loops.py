"""The one place that chooses between the compiled loops and pure Python: all of them, or none.

`pip install` builds the Cython modules listed in setup.py; each is the compiled twin of a Python
loop in this package, which stays as the fallback and the tests' reference. They are taken
together or not at all, so a process runs one of exactly two implementations, and the one that
CI checks in pure-Python mode is the one a user without a compiler gets. Pure Python is chosen
when a module is missing, was built for another lxml, or `NEWSCRAWL_PURE_PYTHON` is set to
anything but empty or 0.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

PURE_PYTHON_VARIABLE = "NEWSCRAWL_PURE_PYTHON"


def is_pure_python_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment forces the pure-Python loops."""
    return environ.get(PURE_PYTHON_VARIABLE, "").strip() not in ("", "0")


try:
    if is_pure_python_requested():
        raise ImportError(f"{PURE_PYTHON_VARIABLE} is set")
    from newscrawl.extraction import _block_trees as block_trees
    from newscrawl.extraction import _dynamic_lca as dynamic_lca
    from newscrawl.extraction import _feature_rows as feature_rows
    from newscrawl.extraction import _metadata_scan as metadata_scan
    from newscrawl.extraction import _static_keys as static_keys
    from newscrawl.extraction import _text_scan as text_scan
    from newscrawl.extraction import _text_walk as text_walk

    PURE_PYTHON_REASON = ""
except ImportError as exc:  # not built, built for another lxml, or pure Python asked for
    block_trees = dynamic_lca = feature_rows = metadata_scan = None  # type: ignore[assignment]
    static_keys = text_scan = text_walk = None  # type: ignore[assignment]
    PURE_PYTHON_REASON = str(exc)

# Whether this process runs the compiled loops (else every stage runs its Python twin).
COMPILED: bool = text_walk is not None
