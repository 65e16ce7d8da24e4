# Two commands do all set-up: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test check lint typecheck imports browser clean

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
# Two pytest workers, one test file each at a time: much of the suite waits on servers, browsers
# and timers, and a file's module fixtures (a server, a Chromium) stay in one worker.
# `make test PYTEST_WORKERS=0` runs everything in one process.
PYTEST_WORKERS ?= 2
test: check browser
	$(BIN)/python -m pytest $(if $(filter-out 0,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadfile) $(PYTEST_ARGS)

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
