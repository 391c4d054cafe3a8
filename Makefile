# The two commands: `make run` and `make test`. Everything else is for people who work on it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# Installs come from the lock files (exact versions with hashes), never from pyproject's ranges.
SITE_LOCK := requirements/app.txt
TEST_LOCK := requirements/test.txt
SITE_STAMP := $(VENV)/.site-installed
TEST_STAMP := $(VENV)/.test-installed
# `make lock UPGRADE=--upgrade` moves every pin to the newest release the ranges allow;
# `UPGRADE="--upgrade-package django"` just one.
UPGRADE ?=
LOCK_ARGS := --generate-hashes --universal --python-version 3.11 --quiet $(UPGRADE)

.PHONY: help run test test-all test-slow install lock editor lint format check fuzz bench admin-bench soak backup restore clean
# A bare `make` lists the targets; it never creates the venv.
.DEFAULT_GOAL := help

help:
	@echo "The two commands:"
	@echo "  make run          serve the site with the demo content on http://$(HOST):$(PORT)/ (and a task worker)"
	@echo "  make test         the default test suite on every core (slow tests left out; ARGS go to pytest)"
	@echo "For people who work on it:"
	@echo "  make test-all     the whole suite, slow tests included"
	@echo "  make test-slow    only the slow tests (servers in subprocesses, corpora, validators, tooling)"
	@echo "  make install      the venv from the lock files (site, test and lint tools)"
	@echo "  make lock         rewrite the lock files after changing pyproject.toml (UPGRADE=--upgrade)"
	@echo "  make editor       create an editor account (EDITOR_ARGS=--superuser)"
	@echo "  make lint         what pre-commit checks: ruff check, ruff format --check, django-upgrade --check"
	@echo "  make format       apply them: ruff check --fix, ruff format, django-upgrade"
	@echo "  make check        makemigrations --check, check --deploy with production settings"
	@echo "  make fuzz         Schemathesis against the API on gunicorn"
	@echo "  make bench        load each endpoint on gunicorn and print the table (BENCH_ARGS)"
	@echo "  make admin-bench  the admin at the size of DATABASE_URL's database (ADMIN_BENCH_ARGS)"
	@echo "  make soak         60 s, 20 clients on gunicorn over a scratch PostgreSQL database"
	@echo "  make backup       a complete dump into backups/"
	@echo "  make restore      replace the database's contents with a backup (FILE=backups/...)"
	@echo "  make clean        remove the venv, staticfiles and tool caches"

# A venv made by a Python older than 3.11 (or whose Python is gone) is rebuilt, not reused.
ifneq ($(wildcard $(VENV)),)
ifneq ($(shell { $(BIN)/python -c 'import sys; print(sys.version_info >= (3, 11))'; } 2>/dev/null),True)
$(info ==> $(VENV) was made by $(or $(shell { $(BIN)/python --version; } 2>/dev/null),a Python that is gone); Python 3.11+ is needed: rebuilding it)
$(shell rm -rf $(VENV))
endif
endif

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "rlscaling needs Python 3.11 or newer; '$(PYTHON)' is $$($(PYTHON) --version 2>&1)."; \
	  echo "Install one and point make at it, e.g. make run PYTHON=python3.12"; exit 1; }
	@echo "==> Creating $(VENV) with $$($(PYTHON) --version)"
	$(PYTHON) -m venv $(VENV)

# Only what the site needs: no test tools, no browser driver.
$(SITE_STAMP): $(SITE_LOCK) $(BIN)/python
	@echo "==> Installing the site's packages from $(SITE_LOCK) (exact versions, hashes checked)"
	$(BIN)/python -m pip install --progress-bar on --require-hashes -r $(SITE_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

$(TEST_STAMP): $(TEST_LOCK) $(SITE_STAMP)
	@echo "==> Installing the test and lint tools from $(TEST_LOCK) (exact versions, hashes checked)"
	$(BIN)/python -m pip install --progress-bar on --require-hashes -r $(TEST_LOCK)
	@touch $@

install: $(TEST_STAMP)

# After changing dependencies in pyproject.toml: rewrite the lock files (keeps other pins).
lock: $(TEST_STAMP)
	$(BIN)/uv pip compile pyproject.toml $(LOCK_ARGS) -o $(SITE_LOCK)
	$(BIN)/uv pip compile pyproject.toml --extra test -c $(SITE_LOCK) $(LOCK_ARGS) -o $(TEST_LOCK)
	@echo "==> Lock files written; commit them. make run / make test install from them."

# manage.py devserver: port check, migrate, load_demo (adds only missing demo rows), runserver
# (and a task worker beside it when the project has a task queue).
run: $(SITE_STAMP)
	$(BIN)/python manage.py devserver --host $(HOST) --port $(PORT)

# The first editor (or any other): asks for a password and holds it to the validators in
# settings (createsuperuser --noinput would take any password). EDITOR_ARGS="--superuser" for
# an account that may also manage users.
editor: $(SITE_STAMP)
	$(BIN)/python manage.py create_editor $(EDITOR_ARGS)

# On every core (pytest-xdist; each browser test module is a group of its own, kept on one
# worker); ARGS go to pytest, e.g. make test ARGS="-k hub" or make test ARGS="tests/pages -n0".
# The default suite leaves out the tests marked slow (pyproject.toml's addopts: -m 'not slow')
# and runs the property tests with few examples; test-slow runs the slow tests, then the
# property tests again with many (Hypothesis's "thorough" profile, tests/conftest.py); test-all
# runs everything with many. What goes where: docs/decisions/0017-default-suite-budget.md.
test: $(TEST_STAMP)
	$(BIN)/python -m pytest -n auto --dist loadgroup $(ARGS)

test-all: $(TEST_STAMP)
	$(BIN)/python -m pytest -n auto --dist loadgroup -m "" --hypothesis-profile=thorough $(ARGS)

# In test-slow, the second run's exit status 5 ("no test selected") is no failure: ARGS may
# name only tests without properties.
test-slow: $(TEST_STAMP)
	$(BIN)/python -m pytest -n auto --dist loadgroup -m slow $(ARGS)
	$(BIN)/python -m pytest -n auto --dist loadgroup -m "hypothesis and not slow" \
		--hypothesis-profile=thorough $(ARGS) || [ $$? -eq 5 ]

# The checks .pre-commit-config.yaml names, in check mode (the same versions, from the lock).
lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	git ls-files -z '*.py' | xargs -0 $(BIN)/django-upgrade --target-version 5.2 --check
	$(BIN)/lint-imports --no-cache

format: $(TEST_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	git ls-files -z '*.py' | xargs -0 $(BIN)/django-upgrade --target-version 5.2 --exit-zero-even-if-changed
	$(BIN)/ruff format .

check: $(SITE_STAMP)
	$(BIN)/python manage.py makemigrations --check --dry-run
	DJANGO_ENV=production SECRET_KEY=check-deploy-$$(date +%s)-a-long-random-value-for-the-check ALLOWED_HOSTS=example.org \
		$(BIN)/python manage.py check --deploy --fail-level WARNING

# Schemathesis against the API's own OpenAPI schema on gunicorn (bench/harness.py, production settings), with
# the demo content in a throwaway SQLite database; bounded (FUZZ_MAX_EXAMPLES, FUZZ_TIMEOUT).
fuzz: $(TEST_STAMP)
	$(BIN)/python tests/fuzz/run_schemathesis.py

# Serve with gunicorn and production settings, load each endpoint, print the table (bench/RESULTS.md).
# e.g. make bench BENCH_ARGS="--compare postgres://.../bench_demo postgres://.../bench_large --write"
bench: $(SITE_STAMP)
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

# The admin at the size of the database in DATABASE_URL: the dashboard, every
# changelist, the biggest change forms, searches and filters; p50, max and queries per page
# (Django's test Client in-process, a superuser made for the run). ADMIN_BENCH_ARGS="--markdown".
admin-bench: $(SITE_STAMP)
	$(BIN)/python bench/admin_bench.py $(ADMIN_BENCH_ARGS)

# 60 s, 20 clients (pages, API reads, a few editors' API writes) on gunicorn with production
# settings over a scratch PostgreSQL database; fails on any 5xx or lost write. SOAK_ARGS="--write"
# records the figures in bench/RESULTS.md.
soak: $(SITE_STAMP)
	$(BIN)/python bench/soak.py $(SOAK_ARGS)

# A complete dump into backups/: pg_dump on PostgreSQL, a dumpdata fixture otherwise.
backup: $(SITE_STAMP)
	$(BIN)/python manage.py backup

# Replace the database's contents with a backup (asks first): make restore FILE=backups/....
restore: $(SITE_STAMP)
	@test -n "$(FILE)" || { echo "usage: make restore FILE=backups/rlscaling-....dump"; exit 2; }
	$(BIN)/python manage.py restore "$(FILE)"

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
