# Sudya — the two commands of the README:
#   make demo   set everything up and start the web app on a demo database (SQLite)
#   make test   set everything up and run the whole test suite
PYTHON ?= python3
UV := $(PYTHON) -m uv

.PHONY: setup demo test check browser screenshots bench docs

setup:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet --disable-pip-version-check uv
	@$(UV) sync --frozen --quiet

demo: setup
	$(UV) run --frozen sudya serve --demo --host $${HOST:-127.0.0.1} --port $${PORT:-8000}

check: setup
	$(UV) run --frozen ruff check src tests bench
	$(UV) run --frozen mypy src
	$(UV) run --frozen lint-imports --no-cache --no-logo
	$(UV) run --frozen python -m sudya.docs --check

test: check browser
	$(UV) run --frozen pytest -q

# Debian's chromium for the browser tests (never a browser download by Playwright), and the
# DejaVu fonts the reference screenshots are drawn with
browser:
	@{ test -x /usr/bin/chromium && test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf; } || { \
	  echo "installing Debian's chromium and fonts-dejavu-core for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core; }

# store new reference screenshots (tests/e2e/screenshots/) after a deliberate layout change
screenshots: setup browser
	SUDYA_UPDATE_SCREENSHOTS=1 $(UV) run --frozen pytest -q tests/e2e/test_layout.py -k screenshot

bench: setup
	$(UV) run --frozen python bench/replay.py
	$(UV) run --frozen python bench/record.py
	$(UV) run --frozen python -P bench/http.py

docs: setup
	$(UV) run --frozen python -m sudya.docs
