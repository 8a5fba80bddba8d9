# Sudya — the two commands of the README:
#   make demo   set everything up and start the web app on a demo database (SQLite)
#   make test   set everything up and run the whole test suite
PYTHON ?= python3
# uv, the installer: the python's own if it has one, else in a small virtual environment of its
# own (.tools): never `pip install` into the system's python (PEP 668 refuses it on Debian 12,
# Ubuntu 24.04 and their like)
UV = $(shell $(PYTHON) -m uv --version >/dev/null 2>&1 && echo "$(PYTHON) -m uv" || echo "$(CURDIR)/.tools/bin/uv")
# the system packages the PDF reports need (WeasyPrint: Pango; the DejaVu fonts for Cyrillic)
PDF_PACKAGES := libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core
TEST_PACKAGES := chromium fonts-dejavu-core poppler-utils

.PHONY: setup demo test check browser screenshots bench docs

setup:
	@echo "sudya: set-up 1/3: uv, the installer"
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || test -x .tools/bin/uv || { \
	  $(PYTHON) -m venv .tools || { echo "sudya: '$(PYTHON) -m venv' failed: Debian and Ubuntu need the package python3-venv (apt-get install python3-venv, as root)"; exit 1; }; \
	  .tools/bin/python -m pip install --quiet --disable-pip-version-check uv; }
	@echo "sudya: set-up 2/3: Python packages into .venv (uv.lock)"
	@# with the bytecode compiled once here: where PYTHONDONTWRITEBYTECODE is set (CI, some
	@# containers), every start of `sudya` would otherwise compile each module it imports
	@$(UV) sync --frozen --quiet --compile-bytecode --python $(PYTHON)
	@$(UV) run --frozen python -m compileall -q src >/dev/null
	@echo "sudya: set-up 3/3: Pango and the DejaVu fonts for the PDF reports"
	@{ ldconfig -p | grep -q libpangoft2-1.0 && test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf; } || \
	  sh scripts/apt.sh $(PDF_PACKAGES)

demo: setup
	$(UV) run --frozen sudya serve --demo --host $${HOST:-127.0.0.1} --port $${PORT:-8000}

check: setup
	$(UV) run --frozen ruff check src tests bench
	$(UV) run --frozen mypy src
	$(UV) run --frozen lint-imports --no-cache --no-logo
	$(UV) run --frozen python -m sudya.edges.docs --check

# every test file on every core (pytest-xdist; a file's tests stay together, sharing its
# fixtures); `pytest -m "not slow and not browser"` is the quick loop while editing
test: check browser
	$(UV) run --frozen pytest -q -n auto --dist loadfile

# Debian's chromium for the browser tests (never a browser download by Playwright), the
# DejaVu fonts the reference screenshots are drawn with, and poppler-utils (pdftoppm) that
# rasterises the PDF reports' first pages for a person to look at
browser:
	@{ test -x /usr/bin/chromium && test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf && command -v pdftoppm >/dev/null; } || \
	  sh scripts/apt.sh $(TEST_PACKAGES)

# store new reference screenshots (tests/e2e/screenshots/) after a deliberate layout change
screenshots: setup browser
	SUDYA_UPDATE_SCREENSHOTS=1 $(UV) run --frozen pytest -q tests/e2e/test_layout.py \
	  tests/e2e/test_report_pages_browser.py -k screenshot

# every benchmark on SQLite; `make bench BENCH_DB=postgresql+psycopg://…` runs the database
# ones on that PostgreSQL server too (each makes a throwaway database there and drops it).
# What each measures, its goal and its latest figure: docs/performance.md
bench: setup
	$(UV) run --frozen python bench/replay.py --rss --ten
	@# instructions per ruling, full history against resets (valgrind: deterministic, about 15 minutes)
	@if command -v valgrind >/dev/null; then $(UV) run --frozen python bench/instructions.py --events 100000; \
	  else echo "bench/instructions.py: no valgrind (Debian package valgrind), skipped"; fi
	$(UV) run --frozen python bench/cli_replay.py
	@# the service-layer record; with valgrind also its instructions per ruling (about 2 minutes more)
	@if command -v valgrind >/dev/null; then $(UV) run --frozen python bench/record.py --instructions; \
	  else $(UV) run --frozen python bench/record.py; fi
	@# HTTP under wrk (Debian's, installed if missing); the server's instructions per request (valgrind)
	$(UV) run --frozen python bench/http_record.py
	@if command -v valgrind >/dev/null; then $(UV) run --frozen python bench/http_instructions.py; \
	  else echo "bench/http_instructions.py: no valgrind (Debian package valgrind), skipped"; fi
	$(UV) run --frozen python bench/coldstart.py
	$(UV) run --frozen python bench/preview.py
	$(UV) run --frozen python -P bench/standings.py
	$(UV) run --frozen python bench/pairing.py
	@# the judge report's PDF of a 500-player event, against a one-page PDF (WeasyPrint)
	$(UV) run --frozen python bench/report_pdf.py
	$(UV) run --frozen python -P bench/dashboard_size.py
	$(UV) run --frozen python -P bench/editor.py
	@# 4 worker processes on PostgreSQL: BENCH_DB's server, or a throwaway cluster (scripts/postgres.sh)
	$(UV) run --frozen python bench/postgres_workers.py $(if $(BENCH_DB),--db "$(BENCH_DB)")
	@if [ -n "$(BENCH_DB)" ]; then set -e; \
	  $(UV) run --frozen python bench/record.py --db "$(BENCH_DB)" --history 300 --n 200; \
	  $(UV) run --frozen python bench/http_record.py --db "$(BENCH_DB)" --workers 4; \
	  $(UV) run --frozen python bench/coldstart.py --db "$(BENCH_DB)"; \
	  $(UV) run --frozen python -P bench/standings.py --db "$(BENCH_DB)"; \
	fi

docs: setup
	$(UV) run --frozen python -m sudya.edges.docs
