# giskard-nb — `make demo` and `make test` work on a fresh machine with only Python 3.11+.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint format bench venv clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "giskard-nb needs Python 3.11+; set PYTHON=python3.11")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m giskard_nb.demo

lint: $(STAMP)
	$(PY) -m ruff check giskard_nb tests benchmarks
	$(PY) -m ruff format --check giskard_nb tests benchmarks

format: $(STAMP)
	$(PY) -m ruff check --fix giskard_nb tests benchmarks
	$(PY) -m ruff format giskard_nb tests benchmarks

test: lint
	$(PY) -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env tests notebooks

bench: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
