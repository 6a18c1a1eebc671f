# giskard-nb — `make demo` and `make test` work on a fresh machine with only Python 3.11+.
#   make demo   installs the package alone (no test tools) and runs the offline demo
#   make test   installs the package with its `dev` extra, lints, and runs the tests and notebooks
# CI (.ci/run) also installs the `ci` extra, Chromium and PostgreSQL, so nothing is skipped there.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.created
DEMO_STAMP := $(VENV)/.installed-demo
DEV_STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: demo test lint format bench bench-judge venv clean

$(BASE):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "giskard-nb needs Python 3.11+; set PYTHON=python3.11")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@touch $(BASE)

$(DEMO_STAMP): pyproject.toml | $(BASE)
	$(PY) -m pip install --quiet -e .
	@touch $(DEMO_STAMP)

$(DEV_STAMP): pyproject.toml | $(BASE)
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(DEV_STAMP) $(DEMO_STAMP)

$(BENCH_STAMP): pyproject.toml | $(BASE)
	$(PY) -m pip install --quiet -e .
	@touch $(BENCH_STAMP) $(DEMO_STAMP)

venv: $(DEV_STAMP)

demo: $(DEMO_STAMP)
	$(PY) -m giskard_nb.demo

lint: $(DEV_STAMP)
	$(PY) -m ruff check giskard_nb tests benchmarks
	$(PY) -m ruff format --check giskard_nb tests benchmarks

format: $(DEV_STAMP)
	$(PY) -m ruff check --fix giskard_nb tests benchmarks
	$(PY) -m ruff format giskard_nb tests benchmarks

test: lint
	$(PY) -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env tests notebooks

bench: $(BENCH_STAMP)
	$(PY) benchmarks/run.py

# The scan's harm judge on the labelled replies, with a real model: make bench-judge MODEL=openai/gpt-4o-mini
bench-judge: $(DEMO_STAMP)
	PYTHONPATH=$(CURDIR) $(PY) benchmarks/bench_judge.py $(if $(MODEL),--model "$(MODEL)") $(if $(SPLIT),--split $(SPLIT))

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
