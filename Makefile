# Two commands do all set-up: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test test-quick check lint typecheck imports browser clean

# Bytecode is written beside the sources (__pycache__, ignored by git; numba's caches are there
# too) even where the environment sets PYTHONDONTWRITEBYTECODE: without it every process of the
# suite compiles the package again (collecting the suite: 14.8 s of CPU instead of 6.6 s in each
# worker; each of its ~100 servers up to 0.4 s more to start: benchmarks/suite_costs.py).
unexport PYTHONDONTWRITEBYTECODE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(RUN_STAMP)

## make run: serve the casino at http://127.0.0.1:8000 on an embedded SQLite database
run: $(RUN_STAMP)
	$(BIN)/dealerpoker serve

## make test: lint, type-check, layer contract, then every test
# Four pytest workers on the two cores, one test file each at a time: much of the suite waits on
# servers, browsers and timers, which the third and fourth workers fill (the full suite on
# 2026-12-06: 1,168 s with two, 950 s with three; on 2026-12-07: 800 s with three, 721 s with four,
# both cores 97% busy), and a file's module fixtures (a server) stay in one worker. The files go out in
# tests/conftest.py's order (--no-loadscope-reorder): slow files first, then the browser files one
# after the other, which one Chromium per worker serves. `make test PYTEST_WORKERS=0` runs
# everything in one process. The run ends with its 25 slowest tests (where the suite's time goes).
PYTEST_WORKERS ?= 4
XDIST = $(if $(filter-out 0,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder)
# The numba kernels compile into their caches beside the checks (scripts/compile_kernels.py), so
# that the workers load them instead of each compiling them again (~55 s of a core each).
test: $(TEST_STAMP) browser
	@$(BIN)/python scripts/compile_kernels.py & compiling=$$!; \
	$(MAKE) --no-print-directory check || { kill $$compiling 2>/dev/null; exit 1; }; \
	wait $$compiling
	$(BIN)/python -m pytest $(XDIST) --durations=25 $(PYTEST_ARGS)

## make test-quick: the quick tier, under 3 minutes: pure core, unit and API tests on SQLite
# (no browser, no PostgreSQL or Redis, no several processes, no kill -9 or long fault runs, and
# no test over ~1.5 s: those are marked slow, from `make test`'s --durations).
QUICK ?= not browser and not slow and not postgres and not redis and not long
test-quick: $(TEST_STAMP)
	$(BIN)/python -m pytest $(XDIST) -m "$(QUICK)" $(PYTEST_ARGS)

check: lint typecheck imports

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests benchmarks

typecheck: $(TEST_STAMP)
	$(BIN)/mypy

imports: $(TEST_STAMP)
	$(BIN)/lint-imports

## Debian's Chromium for the browser tests (never a downloaded browser)
browser:
	@sh scripts/ensure-chromium.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
