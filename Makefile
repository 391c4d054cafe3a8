# The two commands: `make run` and `make test`. Everything else is for people who work on it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lint format check fuzz bench soak backup restore clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

# manage.py devserver: port check, migrate, load_demo (adds only missing demo rows), runserver.
run: $(STAMP)
	$(BIN)/python manage.py devserver --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

check: $(STAMP)
	$(BIN)/python manage.py makemigrations --check --dry-run
	DJANGO_ENV=production SECRET_KEY=check-deploy-$$(date +%s)-a-long-random-value-for-the-check ALLOWED_HOSTS=example.org \
		$(BIN)/python manage.py check --deploy --fail-level WARNING

# Schemathesis against the API's own OpenAPI schema on gunicorn (bench/harness.py, production settings), with
# the demo content in a throwaway SQLite database; bounded (FUZZ_MAX_EXAMPLES, FUZZ_TIMEOUT).
fuzz: $(STAMP)
	$(BIN)/python tests/fuzz/run_schemathesis.py

# Serve with gunicorn and production settings, load each endpoint, print the table (bench/RESULTS.md).
# e.g. make bench BENCH_ARGS="--compare postgres://.../bench_demo postgres://.../bench_large --write"
bench: $(STAMP)
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

# 60 s, 20 clients (pages, API reads, a few editors' API writes) on gunicorn with production
# settings over a scratch PostgreSQL database; fails on any 5xx or lost write. SOAK_ARGS="--write"
# records the figures in bench/RESULTS.md.
soak: $(STAMP)
	$(BIN)/python bench/soak.py $(SOAK_ARGS)

# A complete dump into backups/: pg_dump on PostgreSQL, a dumpdata fixture otherwise.
backup: $(STAMP)
	$(BIN)/python manage.py backup

# Replace the database's contents with a backup (asks first): make restore FILE=backups/....
restore: $(STAMP)
	@test -n "$(FILE)" || { echo "usage: make restore FILE=backups/rlscaling-....dump"; exit 2; }
	$(BIN)/python manage.py restore "$(FILE)"

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .ruff_cache
