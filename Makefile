# One command per job; each target creates .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
EXAMPLE := example

.PHONY: run test test-loaded check bench wheel-check example clean

# The main job needs only the package; the test toolchain (pytest, mypy, schemathesis, ...) is
# the dev extra, installed by the targets that use it. The package's bytecode is compiled at
# install, as pip does for a wheel: an editable install otherwise leaves it to the first run,
# and where PYTHONDONTWRITEBYTECODE is set every start compiles the whole package again.
$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --quiet -e .
	$(BIN)/python -m compileall -q src
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --quiet -e '.[dev]'
	$(BIN)/python -m compileall -q src
	touch $(STAMP) $(RUN_STAMP)

# The main job: generate the example catalog and data, check it, answer a certified question.
run: $(RUN_STAMP)
	$(BIN)/sutura example $(EXAMPLE)
	SUTURA_CONFIG_DIR=$(EXAMPLE) $(BIN)/sutura check
	SUTURA_CONFIG_DIR=$(EXAMPLE) $(BIN)/sutura query revenue average_order_value \
		--grain quarter --from 2024-01-01 --to 2025-01-01 --by region --compare previous_year

# The suite on one worker process per core, at most four (pytest-xdist; the Spark tests share
# one worker, see tests/conftest.py). Override with `make test PYTEST_WORKERS=0` for one process.
PYTEST_WORKERS ?= auto --maxprocesses=4

test: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS)

# The suite while every core is kept busy by processes the run starts itself (tests/cpu_hog.py).
test-loaded: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --cpu-hog

check: $(STAMP)
	$(BIN)/python -m ruff check src tests bench typings
	$(BIN)/python -m ruff format --check src tests bench typings
	$(BIN)/python -m mypy

bench: $(STAMP)
	$(BIN)/python -m bench

# Build the wheel and sdist, install the wheel into a fresh venv, run the main job from it.
wheel-check: $(STAMP)
	scripts/wheel-check $(BIN)/python

clean:
	rm -rf $(VENV) $(EXAMPLE) .mypy_cache .ruff_cache .pytest_cache .hypothesis
