# Two commands do all the set-up on a fresh machine:
#   make demo   crawl the local demo news network into SQLite, then query it
#   make test   lint, type-check and run the test suite
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint install clean

# The editable install compiles the extraction loops (setup.py): a changed .pyx, .pxi or .pxd needs
# a reinstall.
$(STAMP): pyproject.toml setup.py $(wildcard newscrawl/extraction/*.pyx newscrawl/extraction/*.pxi newscrawl/extraction/*.pxd)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/newscrawl demo

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

# The second run takes the pure-Python loops (newscrawl/extraction/compiled_loops.py) through the
# extraction core's tests: what a user without a compiler runs.
test: lint
	$(PY) -m pytest
	NEWSCRAWL_PURE_PYTHON=1 $(PY) -m pytest -q tests/extraction

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
	rm -f newscrawl/extraction/_*.c newscrawl/extraction/_*.so
