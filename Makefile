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

# The whole suite runs twice: with the compiled loops, then with the pure-Python ones
# (newscrawl/extraction/compiled_loops.py), what a user without a compiler runs; only the tests that
# compare a compiled loop with its Python twin skip in the second run. Each run spreads whole test
# modules (--dist loadfile: a module's fixtures are set up once) over TEST_WORKERS processes,
# longest modules first (tests/conftest.py). Most crawl tests wait on sockets and timers, so more
# workers than the 2 cores pay: the crawl tests (tests/polling, tests/hostile, the demo crawls and
# the crash restart) took 111 s with -n 2, 77 and 82 s with -n 4, 83 s with -n 6.
TEST_WORKERS ?= 4
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# Both runs test one wheel, built by the first (tests/e2e/test_installed_wheel.py: build_once).
test: lint
	wheel_dir=$$(mktemp -d) && trap 'rm -rf "$$wheel_dir"' EXIT && trap 'exit 1' INT TERM && \
	NEWSCRAWL_TEST_WHEEL_DIR="$$wheel_dir" $(PY) -m pytest $(PYTEST_PARALLEL) && \
	NEWSCRAWL_TEST_WHEEL_DIR="$$wheel_dir" NEWSCRAWL_PURE_PYTHON=1 $(PY) -m pytest -q $(PYTEST_PARALLEL)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
	rm -f newscrawl/extraction/_*.c newscrawl/extraction/_*.so
