# Paiju: `make run` (the main job) and `make test` (the test suite) on a fresh machine.
# Two install profiles in one venv: `run` installs the package with its base dependencies only
# (what simulate, ingest and the dashboard need); `test`, `lint`, `bench` and .ci/run add the `dev`
# extra (pytest, hypothesis, ruff, rlcard, mahjong, playwright, pyspark, …).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint bench install install-dev install-check clean demo

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# the install compiles the bots' hot paths (mahjong, the climbing games) with mypyc (setup.py; pure
# Python without a C compiler): it is redone when a file the build was made from changes (engine/compiled.py)
BUILD_SRC := setup.py engine/compiled.py $(shell $(PYTHON) engine/compiled.py)
HOT_PATH = $(PY) -c "from engine.compiled import state; print('paiju: compiled hot paths:', state())"

$(RUN_STAMP): pyproject.toml $(BUILD_SRC) | $(PY)
	$(PY) -m pip install -q -e .
	@$(HOT_PATH)
	touch $@

$(DEV_STAMP): pyproject.toml $(BUILD_SRC) | $(PY)
	$(PY) -m pip install -q -e '.[dev]'
	@$(HOT_PATH)
	touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

DEMO_MATCHES ?= 300
LAKE ?= lake
PORT ?= 8501

## the main job: simulate a demo data set of every game, ingest it, open the dashboard
run: demo
	$(VENV)/bin/paiju dashboard --lake $(LAKE) --port $(PORT)

## simulate + ingest only (no server)
demo: $(RUN_STAMP)
	mkdir -p demo
	for g in $$($(PY) -c "from engine.registry import available_games; print(*available_games())"); do \
	  $(VENV)/bin/paiju simulate --game $$g --matches $(DEMO_MATCHES) --seed 1 --workers 2 --out demo/$$g.jsonl.gz || exit 1; \
	done
	$(VENV)/bin/paiju ingest demo/*.jsonl.gz tests/data/golden/*.jsonl tests/data/disputes/*.jsonl --lake $(LAKE)

## the test suite (what CI runs)
test: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n 2 --dist loadgroup

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(DEV_STAMP)
	for b in bench/*.py; do $(PY) $$b || exit 1; done

## `pip install .` into a fresh venv outside the repository; every command from another folder
install-check:
	PYTHON=$(PYTHON) .ci/install_check.sh

clean:
	rm -rf $(VENV) $(LAKE) demo build *.egg-info
