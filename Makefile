# The one task runner: README, CI and hooks call these targets.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_LOGGING_LEVEL ?= WARNING

.PHONY: install demo test test-fast bench lint typecheck sandbox clean bytecode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)

# pip compiles what it installs one file after another; compileall -j 0 does it on every core
# (a fresh install: 37.7 s against 42.5 s on 2 cores). Like pip, a file that does not compile
# is left to be compiled on import, not an error.
$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet --no-compile -c constraints.txt -e '.[dev]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/dispute-evidence demo

# Every test, on TEST_WORKERS processes (pytest-xdist): the suite mostly waits (on the sandbox,
# Prefect servers, CLI subprocesses), so more workers than cores overlap the waits. Tests that
# share a Prefect harness or a module's fixture share a worker (tests/workers.py). The 25
# slowest are printed so they stay in sight. 8, measured on 2 cores (README, Two commands):
# 6 workers kept busy to the end use 1.4 cores; 8 took 417 s quiet and 468 s beside a busy
# core against 453 s and 502 s for 6; 10 gained nothing more beside it (462 s).
TEST_WORKERS ?= 8
test: install bytecode
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=25

# While working: the unit tier only (tests/unit/: no socket, no subprocess, no Prefect, checked
# by tests/conftest.py); `make test` runs tests/integration/ and tests/e2e/ too. Two workers:
# 50 s against 82 s on one process on 2 cores. Property tests draw a fifth of their examples
# here (tests/support/examples.py), all of them under `make test`. Grouped as `make test`
# groups (tests/workers.py), so a module's fixture is built once, not once per worker:
# 134-146 user CPU-s against 150 (72-78 s against 79-82 s, 2026-11-30, noisy).
test-fast: install bytecode
	$(BIN)/pytest tests/unit -q -n 2 --dist loadgroup --hypothesis-profile=fast

# pytest compiles each test module again from its rewritten asserts, in every worker, and with
# PYTHONDONTWRITEBYTECODE set keeps nothing: collecting the suite took 8.5 CPU-s a worker
# without the rewritten modules and 4.3 s with them. One collection per half of the tree, the
# two side by side, writes them (again only when a test file changed).
TEST_SOURCES := $(shell find tests -name '*.py' 2>/dev/null)
$(VENV)/.test-bytecode: $(VENV)/.installed $(TEST_SOURCES)
	unset PYTHONDONTWRITEBYTECODE; \
	$(BIN)/pytest --collect-only -q -p no:cacheprovider tests/unit > /dev/null & \
	$(BIN)/pytest --collect-only -q -p no:cacheprovider tests/integration tests/e2e > /dev/null; \
	wait; touch $@

# Our own modules compiled once (pip compiles every installed package, not an editable
# project's): where PYTHONDONTWRITEBYTECODE is set, as on these machines, each of the suite's
# hundreds of processes (CLI runs, flow runs, workers) compiled all of them again, ~0.2 CPU-s
# each. Only what changed is compiled again; Python ignores a stale file. The test modules'
# rewritten bytecode first (above).
bytecode: install $(VENV)/.test-bytecode
	$(BIN)/python -m compileall -q -j 0 src flows support tests bench > /dev/null

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
