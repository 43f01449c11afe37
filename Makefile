# One command per job; each target creates .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := example

.PHONY: run test check bench example clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The main job: generate the example catalog and data, check it, answer a certified question.
run: $(STAMP)
	$(BIN)/sutura example $(EXAMPLE)
	SUTURA_CONFIG_DIR=$(EXAMPLE) $(BIN)/sutura check
	SUTURA_CONFIG_DIR=$(EXAMPLE) $(BIN)/sutura query revenue average_order_value \
		--grain quarter --from 2024-01-01 --to 2025-01-01 --by region

test: $(STAMP)
	$(BIN)/python -m pytest

check: $(STAMP)
	$(BIN)/python -m ruff check src tests bench typings
	$(BIN)/python -m ruff format --check src tests bench typings
	$(BIN)/python -m mypy

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(EXAMPLE) .mypy_cache .ruff_cache .pytest_cache .hypothesis
