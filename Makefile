# Stela: `make run` starts the service on http://127.0.0.1:8000, `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install bench openapi simulate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/stela serve

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -p no:cacheprovider tests
	$(BIN)/python bench/run.py --short

bench: $(STAMP)
	$(BIN)/python bench/run.py

openapi: $(STAMP)
	$(BIN)/stela openapi

simulate: $(STAMP)
	for g in tikal coatl tobago goldmine; do $(BIN)/stela simulate --game $$g --games 100 --seed 1 --fast; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
