# `make demo` and `make test` each prepare .venv by themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2 --durations=30

.PHONY: demo test lint docs docs-serve install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# stamps: reinstall when pyproject.toml changes. The demo reports on every family, so it installs
# the references and every library the package adapts (a fresh resolve of these extras gives the
# versions pyproject.toml names as tested together). --no-compile: Python compiles a module to
# bytecode when it is first imported, not every module of every package at install (40 s of 2.5
# minutes of a fresh install here).
DEMO_EXTRAS := parity,brax,jumanji,pgx,gymnax,craftax,playground,xminigrid,navix
$(VENV)/.demo-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --no-compile -e ".[$(DEMO_EXTRAS)]"
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --no-compile -e ".[all,dev]"
	touch $@ $(VENV)/.demo-installed

install: $(VENV)/.demo-installed

demo: $(VENV)/.demo-installed
	$(BIN)/jaxenvs report

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# the documentation site (mkdocs.yml); `docs` fails on any warning
docs: $(VENV)/.test-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.test-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

test: lint docs
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache site
