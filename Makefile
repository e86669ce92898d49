# One command runs the site, one command runs the tests. See README.md.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
# The first Python 3.12+ found, 3.13 preferred (pyenv installs included).
PYTHON ?= $(shell for p in python3.13 $$HOME/.pyenv/versions/3.13*/bin/python3.13 python3.14 python3.12 python3 \
	$$HOME/.pyenv/versions/3.1[24]*/bin/python3; do \
	if $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then echo $$p; break; fi; done)

export DATABASE_URL_TEST ?= postgres://postgres@127.0.0.1:5432/septica
export REDIS_URL_TEST ?= redis://127.0.0.1:6379/0
# The test processes `make test` runs side by side (pytest-xdist, e.g. 2); 0 (the default) runs the suite in one.
TEST_PROCESSES ?= 0

.PHONY: run prod test lint superuser translations messages vendor clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Python 3.12 or newer is needed (python3.13 recommended)."; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

translations: $(VENV)/.installed
	$(BIN)/python manage.py compiletranslations

## The site on the embedded default (SQLite, in-memory channel layer and broker) at http://127.0.0.1:8000;
## another port or address with PORT= and HOST= (make run PORT=8001 HOST=0.0.0.0)
run: translations
	$(BIN)/python manage.py buildpractice
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py vapidkeys --embedded
	$(BIN)/python manage.py serve --host $(or $(HOST),127.0.0.1) --port $(or $(PORT),8000)

## The production shape: nginx on PORT (8000) in front of one Daphne per core, a Celery worker with
## beat; needs DATABASE_URL (PostgreSQL), REDIS_URL and nginx. See README.
prod: $(VENV)/.installed
	$(BIN)/python manage.py prod --port $(or $(PORT),8000) $(if $(DAPHNES),--daphnes $(DAPHNES))

## An administrator account for /admin/
superuser: $(VENV)/.installed
	$(BIN)/python manage.py createsuperuser

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

## Lint, layer contracts and the whole test suite on PostgreSQL and Redis
test: lint translations
	DATABASE_URL=$${DATABASE_URL:-$(DATABASE_URL_TEST)} REDIS_URL=$${REDIS_URL:-$(REDIS_URL_TEST)} \
		$(BIN)/pytest -n $(TEST_PROCESSES) $(PYTEST_ARGS)

## Refresh the translation catalogues from the code (needs GNU gettext)
messages: $(VENV)/.installed
	$(BIN)/python manage.py makemessages --locale ro --ignore '.venv/*' --ignore 'static/*'

## Re-vendor htmx, its websocket extension and Pyodide from the npm registry
vendor:
	rm -rf build/htmx && mkdir -p build/htmx
	cd build/htmx && npm pack htmx.org@4.0.1 --silent && tar xzf htmx.org-4.0.1.tgz
	cp build/htmx/package/dist/htmx.min.js build/htmx/package/dist/ext/hx-ws.js \
		build/htmx/package/LICENSE static/vendor/htmx/
	rm -rf build/pyodide && mkdir -p build/pyodide static/vendor/pyodide-314.0.7
	cd build/pyodide && npm pack pyodide@314.0.7 --silent && tar xzf pyodide-314.0.7.tgz
	cp build/pyodide/package/pyodide.mjs build/pyodide/package/pyodide.asm.mjs build/pyodide/package/pyodide.asm.wasm \
		build/pyodide/package/python_stdlib.zip build/pyodide/package/pyodide-lock.json static/vendor/pyodide-314.0.7/
	cp /usr/share/common-licenses/MPL-2.0 static/vendor/pyodide-314.0.7/LICENSE

clean:
	rm -rf $(VENV) staticfiles test-artifacts .pytest_cache .ruff_cache
