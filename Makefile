# Sudya — the two commands of the README:
#   make demo   set everything up and run the demo tournament (SQLite, no server)
#   make test   set everything up and run the whole test suite
PYTHON ?= python3
UV := $(PYTHON) -m uv

.PHONY: setup demo test check bench docs

setup:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet --disable-pip-version-check uv
	@$(UV) sync --frozen --quiet

demo: setup
	$(UV) run --frozen sudya demo

check: setup
	$(UV) run --frozen ruff check src tests bench
	$(UV) run --frozen mypy src
	$(UV) run --frozen python -m sudya.docs --check

test: check
	$(UV) run --frozen pytest -q

bench: setup
	$(UV) run --frozen python bench/replay.py

docs: setup
	$(UV) run --frozen python -m sudya.docs
