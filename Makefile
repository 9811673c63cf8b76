# Developer and CI entry points. `make run` and `make test` build .venv on first use.
# `make run` serves a real table: DEBUG off, waitress, whitenoise, SQLite by default
# (config.settings.table). LAN=1 (or HOST=0.0.0.0) listens on the Wi-Fi and prints the
# phones' address with a QR code; the default answers this machine only.
# `make dev` is Django's development server with DEBUG on (config.settings.local).
LAN ?=
HOST ?= $(if $(LAN),0.0.0.0,127.0.0.1)
PORT ?= 8000
TABLE_SETTINGS := DJANGO_SETTINGS_MODULE=config.settings.table
VENV := .venv
PY := $(VENV)/bin/python
MANAGE := $(PY) manage.py
STAMP := $(VENV)/.installed
# The first interpreter that is Python >= 3.11 (a pyenv shim may exist without its version).
PYTHON_BOOT := $(shell for p in python3.11 python3; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)

.PHONY: run dev demo test bench lint schema schema-check install clean messages makemessages screenshots

install: $(STAMP)

$(PY):
	@test -n "$(PYTHON_BOOT)" || { echo "make: need Python >= 3.11 (python3.11 or python3)" >&2; exit 1; }
	$(PYTHON_BOOT) -m venv $(VENV)

# Re-install whenever pyproject.toml is newer than the last install.
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

run: $(STAMP) messages
	$(TABLE_SETTINGS) $(MANAGE) migrate
	$(TABLE_SETTINGS) $(MANAGE) serve --host $(HOST) --port $(PORT)

dev: $(STAMP) messages
	$(MANAGE) migrate
	$(MANAGE) runserver $(HOST):$(PORT)

# Plays examples/club_night.json over HTTP on a throwaway server and SQLite database
# (DEMO_ARGS="--record game.json" to play another record).
demo: $(STAMP)
	$(MANAGE) demo $(DEMO_ARGS)

# Benchmarks on PostgreSQL, kept out of `make test`: gunicorn under load, the rules core,
# league reads; writes BENCHMARKS.md and BENCHMARKS.json (BENCH_QUICK=1: about a minute).
bench: $(VENV)/.installed-bench
	scripts/with-postgres $(PY) -m bench

$(VENV)/.installed-bench: pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $@

test: $(STAMP) messages
	$(MANAGE) check
	$(MANAGE) makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy referee scoring config
	$(MAKE) --no-print-directory schema-check
	@test -x "$${CHROMIUM:-/usr/bin/chromium}" || echo "make test: NOTE: no Chromium at \
	$${CHROMIUM:-/usr/bin/chromium}, so the browser tests (pytest -m browser) will NOT run. \
	To run them: apt-get install -y chromium (or CHROMIUM=/path/to/chromium)." >&2
	scripts/with-postgres $(VENV)/bin/pytest $(PYTEST_ARGS)

# Compiles locale/*/LC_MESSAGES/django.po into .mo with polib (no GNU gettext; .mo not committed).
messages: $(STAMP)
	$(PY) scripts/compile-messages

# Re-extracts every message into the .po catalogs (needs GNU gettext: apt-get install gettext).
makemessages: $(STAMP)
	$(MANAGE) makemessages -l fr -l pl -l id --no-location --no-obsolete --no-wrap \
		--ignore 'tests/*' --ignore 'scripts/*' --ignore 'docs/*'

# Re-takes the phone screenshots in docs/screenshots/ (360x640) with the browser tests.
screenshots: $(STAMP) messages
	SCREENSHOT_DIR=docs/screenshots scripts/with-postgres $(VENV)/bin/pytest -m browser tests/referee/web

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy referee scoring config

# Writes the OpenAPI schema to openapi.yaml (not committed) and validates it.
schema: $(STAMP)
	$(MANAGE) spectacular --validate --fail-on-warn --file openapi.yaml

schema-check: $(STAMP)
	$(MANAGE) spectacular --validate --fail-on-warn --file /dev/null

clean:
	rm -rf $(VENV) openapi.yaml .pytest_cache .ruff_cache .mypy_cache .hypothesis
