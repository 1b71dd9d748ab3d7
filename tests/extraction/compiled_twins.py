"""The mark for tests that compare a compiled loop with its Python twin."""

import pytest

from newscrawl.extraction.compiled_loops import PURE_PYTHON_VARIABLE, is_pure_python_requested

# In pure-Python mode (CI's second run) there is no compiled twin to compare the Python loop with.
needs_compiled_loops = pytest.mark.skipif(
    is_pure_python_requested(), reason=f"{PURE_PYTHON_VARIABLE} is set: no compiled loops"
)
