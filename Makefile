# The one task runner: README, CI and hooks call these targets.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_LOGGING_LEVEL ?= WARNING

.PHONY: install demo test test-fast bench lint typecheck sandbox clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/dispute-evidence demo

test: install
	$(BIN)/pytest -q

# While working: everything but the tests that need a Prefect server, the sandbox API over
# loopback or several workers (tests/conftest.py marks them); `make test` runs them all.
test-fast: install
	$(BIN)/pytest -q -m "not (prefect or sandbox_server or fleet or slow)"

bench: install
	$(BIN)/python -m bench

lint: install
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

# mypy: strict on api/, engine/ and evidence/ (pyproject.toml), checked everywhere else
typecheck: install
	$(BIN)/mypy

sandbox: install
	$(BIN)/dispute-evidence sandbox --generate 50

clean:
	rm -rf $(VENV) .pytest_cache demo-run
