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

.PHONY: run dev demo test test-core bench bench-ladder bench-league bench-corrections bench-long bench-load lint schema schema-check install clean \
	messages makemessages screenshots clients clients-check

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

# The computer seats' strength ladder alone (R39), into BENCHMARKS.md/.json of the last run.
bench-ladder: $(VENV)/.installed-bench
	$(PY) -m bench --ladder

# The league reads alone (BENCH_LEAGUE_SIZES=1000,10000,100000), printed; BENCHMARKS.md untouched.
bench-league: $(VENV)/.installed-bench
	scripts/with-postgres $(PY) -m bench --league

# The live load alone (moves against the baseline at BENCH_TABLES, then the open loop unless
# BENCH_OPEN_TABLES=0), printed with its ratios; BENCHMARKS.md untouched.
bench-load: $(VENV)/.installed-bench
	scripts/with-postgres $(PY) -m bench --load

# Corrections of round 1 of a 40-round game alone (R35–R37), into BENCHMARKS.md/.json of the
# last run (BENCH_CORRECTIONS_REPEAT=10 times each way; BENCH_DATABASE to use another database).
bench-corrections: $(VENV)/.installed-bench
	scripts/with-postgres $(PY) -m bench --corrections

# A long game alone (R27): each read and ruling at BENCH_LONG_SIZES rounds (40,250,600),
# BENCH_LONG_REPEAT times, into BENCHMARKS.md/.json of the last run.
bench-long: $(VENV)/.installed-bench
	scripts/with-postgres $(PY) -m bench --long

$(VENV)/.installed-bench: pyproject.toml | $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $@

test: $(STAMP) messages
	$(MANAGE) check
	$(MANAGE) makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy referee scoring config
	$(VENV)/bin/lint-imports --no-cache
	$(MAKE) --no-print-directory schema-check
	$(MAKE) --no-print-directory clients-check
	@test -x "$${CHROMIUM:-/usr/bin/chromium}" || echo "make test: NOTE: no Chromium at \
	$${CHROMIUM:-/usr/bin/chromium}, so the browser tests (pytest -m browser) will NOT run. \
	To run them: apt-get install -y chromium (or CHROMIUM=/path/to/chromium)." >&2
	scripts/with-postgres $(VENV)/bin/pytest $(PYTEST_ARGS)

# The pure rules core's tests (referee.engine, scoring.core) and the rule-coverage check:
# no database, no server, seconds. pytest-django refuses any database access they try.
test-core: $(STAMP)
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/pytest -q tests/referee/engine tests/scoring/core tests/test_rule_coverage.py $(PYTEST_ARGS)

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
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy referee scoring config
	$(VENV)/bin/lint-imports --no-cache

# Writes the OpenAPI schema to openapi.yaml (not committed) and validates it.
schema: $(STAMP)
	$(MANAGE) spectacular --validate --fail-on-warn --file openapi.yaml

schema-check: $(STAMP)
	$(MANAGE) spectacular --validate --fail-on-warn --file /dev/null

# The pinned npm tools of package-lock.json (openapi-typescript, typescript), re-installed
# when package.json or the lock changes, like the venv.
NODE_STAMP := node_modules/.installed

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Typed clients for other apps, generated from the schema into clients/ (not committed):
# clients/openapi.json, clients/python/ (openapi-python-client: a package, `pip install
# clients/python`), clients/typescript/domeng.ts (openapi-typescript).
CLIENTS_PY_CONFIG := tests/clients/openapi-python-client.yaml
clients: $(STAMP) $(NODE_STAMP)
	rm -rf clients
	mkdir -p clients/typescript
	$(MANAGE) spectacular --validate --fail-on-warn --format openapi-json --file clients/openapi.json
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/openapi-python-client generate --meta setup \
		--path clients/openapi.json --config $(CLIENTS_PY_CONFIG) --output-path clients/python
	node_modules/.bin/openapi-typescript clients/openapi.json -o clients/typescript/domeng.ts

# The TypeScript half of the typed-client test (the Python half is tests/clients/): the
# shapes the table uses, compiled against the generated types with tsc --strict.
clients-check: clients
	node_modules/.bin/tsc -p tests/clients/tsconfig.json

clean:
	rm -rf $(VENV) openapi.yaml .pytest_cache .ruff_cache .mypy_cache .hypothesis clients node_modules
