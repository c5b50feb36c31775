# `make demo` and `make test` each prepare .venv by themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2 --durations=30

# the tested set (constraints.txt): every install below takes its exact versions; `CONSTRAINTS=`
# resolves fresh from pyproject.toml's ranges instead (to regenerate the file)
CONSTRAINTS ?= constraints.txt
PIP_CONSTRAINTS := $(if $(CONSTRAINTS),-c $(CONSTRAINTS))
# torch's CPU build (the `sb3` extra): the public index's default torch wheel is the CUDA one
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH := $(shell grep -m1 '^torch==' constraints.txt 2>/dev/null)

# Bytecode: Python writes a module's .pyc when it first imports it, and every later process (the
# test workers, the tests' subprocesses, the demo's) reuses it. A shell that sets
# PYTHONDONTWRITEBYTECODE (this project's CI machines do) would compile every imported module
# from source in every process, as the install below compiles nothing (--no-compile): 2.6 of the
# 4 s of `import jaxenvs, jax, gymnasium` here, and half of a test worker's collection. Empty
# means unset to Python.
export PYTHONDONTWRITEBYTECODE :=

.PHONY: demo test lint docs docs-serve install clean wheel-smoke pin export-check audit-page power

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# stamps: reinstall when pyproject.toml or constraints.txt changes. The demo reports on every family, so it installs
# the references and every library the package adapts (a fresh resolve of these extras gives the
# versions pyproject.toml names as tested together). --no-compile: Python compiles a module to
# bytecode when it is first imported, not every module of every package at install (40 s of 2.5
# minutes of a fresh install here).
DEMO_EXTRAS := parity,brax,jumanji,pgx,gymnax,craftax,playground,xminigrid,navix,ale
$(VENV)/.demo-installed: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/pip install --quiet --no-compile $(PIP_CONSTRAINTS) -e ".[$(DEMO_EXTRAS)]"
	touch $@

# torch first, alone, from its CPU index (--no-deps: the rest come from the main index below)
$(VENV)/.test-installed: pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(if $(TORCH),$(BIN)/pip install --quiet --no-compile --no-deps --index-url $(TORCH_INDEX) "$(TORCH)")
	$(BIN)/pip install --quiet --no-compile $(PIP_CONSTRAINTS) -e ".[all,dev]"
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

# the lab (lab/, beside the package, not in the wheel): what only the project runs.
# `make pin IDS="CartPole-v1"` re-pins those ids' fingerprints (every id when IDS is empty);
# `make export-check` runs gymnasium's check_env on every exported id; `make audit-page` runs
# the audit and writes its measured table into docs/audit.md (the findings there are prose)
IDS ?=
pin: $(VENV)/.test-installed
	$(BIN)/python -m lab.fingerprints --pin $(IDS)

export-check: $(VENV)/.test-installed
	$(BIN)/python -m lab.export_check $(IDS)

audit-page: $(VENV)/.test-installed
	$(BIN)/python -m lab.audit_page

# the parity verdicts' power and false alarms (lab/power, the project's lab: not in the wheel), written
# into docs/parity.md; POWER_SCALE and POWER_SEEDS size it (hours on 2 CPU cores at the defaults)
POWER_SCALE ?= 0.25
POWER_SEEDS ?= 0-9
POWER_RESULTS ?= docs/parity-power.jsonl
power: $(VENV)/.test-installed
	$(BIN)/python -m lab.power --mutants --scale $(POWER_SCALE) --results $(POWER_RESULTS)
	$(BIN)/python -m lab.power --false-alarms --seeds $(POWER_SEEDS) --scale $(POWER_SCALE) --results $(POWER_RESULTS)
	$(BIN)/python -m lab.power --markdown docs/parity.md --results $(POWER_RESULTS)

# the package as a user installs it: the wheel built from this checkout, with no extras and no
# constraints, in a fresh venv, and a short session (.ci/wheel_smoke.py); twine checks both archives
wheel-smoke: $(VENV)/.test-installed
	rm -rf dist
	$(BIN)/python -m build --outdir dist . > dist.log 2>&1 || { cat dist.log; exit 1; }
	$(BIN)/twine check --strict dist/*
	$(BIN)/python .ci/check_archives.py dist
	set -e; smoke=$$(mktemp -d); trap 'rm -rf "$$smoke"' EXIT; \
	$(PYTHON) -m venv "$$smoke/venv"; \
	"$$smoke/venv/bin/pip" install --quiet --no-compile dist/*.whl; \
	cd "$$smoke" && "$$smoke/venv/bin/python" $(CURDIR)/.ci/wheel_smoke.py

clean:
	rm -rf $(VENV) .pytest_cache site dist dist.log build
