# densela: `make test` (lint, tests and doctests in Triton's interpreter), `make demo` (the benchmark lab's quick suite and its report).
# Both create .venv when it is missing and install into it; the install is redone only when
# pyproject.toml or this Makefile changes (stamp files in .venv).

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --progress-bar off
# The pinned CPU build of torch (pip's find-links provide it; an unpinned torch pulls the CUDA wheels),
# the Triton whose interpreter the tests run in, and a NumPy that interpreter works with. Repeated in
# every install so that installing densela never re-resolves them.
PINS := torch==2.13.0 triton==3.6.0 'numpy<2.4'
TEST_STAMP := $(VENV)/.densela-test-installed
BENCH_STAMP := $(VENV)/.densela-bench-installed
PYTEST_ARGS ?=

.PHONY: test lint demo clean distclean

# The tests, the docstring examples of the package and the examples of docs/guide.md, all in Triton's
# interpreter. A module that cannot be imported here (one that needs a GPU library) has its doctests
# skipped rather than failing collection; the tests still import everything they cover.
# Extra pytest arguments: make test PYTEST_ARGS='-x -k gemm'
test: lint
	TRITON_INTERPRET=1 $(PY) -m pytest -q tests src/densela docs/guide.md \
		--doctest-modules --doctest-glob='*.md' --doctest-ignore-import-errors $(PYTEST_ARGS)

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check src tests scripts
	$(VENV)/bin/ruff format --check src tests scripts

demo: $(BENCH_STAMP)
	$(VENV)/bin/densela info
	$(VENV)/bin/densela bench quick --out demo-output

$(PY):
	$(PYTHON) -m venv $(VENV)

# The pinned packages first, then densela itself, editable, with the extra the stamp names.
$(VENV)/.densela-%-installed: pyproject.toml Makefile | $(PY)
	$(PIP) $(PINS)
	$(PIP) $(PINS) -e '.[$*]'
	touch $@

clean:
	rm -rf build dist .pytest_cache .ruff_cache .hypothesis src/*.egg-info
	find src tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
