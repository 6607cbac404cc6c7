# Paiju: `make run` (the main job) and `make test` (the test suite) on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint bench install clean demo

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

DEMO_MATCHES ?= 300
LAKE ?= lake
PORT ?= 8501

## the main job: simulate a demo data set of every game, ingest it, open the dashboard
run: demo
	$(VENV)/bin/paiju dashboard --lake $(LAKE) --port $(PORT)

## simulate + ingest only (no server)
demo: $(STAMP)
	mkdir -p demo
	for g in $$($(PY) -c "from engine.registry import available_games; print(*available_games())"); do \
	  $(VENV)/bin/paiju simulate --game $$g --matches $(DEMO_MATCHES) --seed 1 --workers 2 --out demo/$$g.jsonl.gz || exit 1; \
	done
	$(VENV)/bin/paiju ingest demo/*.jsonl.gz tests/data/golden/*.jsonl tests/data/disputes/*.jsonl --lake $(LAKE)

## the test suite (what CI runs)
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n 2 --dist loadgroup

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	for b in bench/*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) $(LAKE) demo build *.egg-info
