"""The one place that chooses between the compiled loops and pure Python: all of them, or none.

`pip install` builds the three Cython modules listed in setup.py; each holds the compiled twins of
Python loops in this package, which stay as the fallback and the tests' reference. They are taken
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
    from newscrawl.extraction import _block_rows as block_rows
    from newscrawl.extraction import _node_walk as node_walk
    from newscrawl.extraction import _static_keys as static_keys

    PURE_PYTHON_REASON = ""
except ImportError as exc:  # not built, built for another lxml, or pure Python asked for
    block_rows = node_walk = static_keys = None  # type: ignore[assignment]
    PURE_PYTHON_REASON = str(exc)

# Whether this process runs the compiled loops (else every stage runs its Python twin).
COMPILED: bool = node_walk is not None
