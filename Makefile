# Stela: `make run` starts the service on http://127.0.0.1:8000, `make check` runs the fast tier (no
# PostgreSQL, Redis, server, browser or Node), `make test` the whole suite tier by tier (tests/run_tiers.py).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run check test test-long install bench chaos chaos-short fuzz openapi sdk-ts simulate screenshots cert clean

$(STAMP): pyproject.toml clients/python/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]' -e 'clients/python[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/stela serve

check: $(STAMP)
	$(BIN)/python tests/run_tiers.py check

# check alone, then service, browser and slow in one xdist session (tests/run_tiers.py), then the short
# benchmarks; prints the 25 slowest tests, each tier's span and each session's wall time
test: $(STAMP)
	$(BIN)/python tests/run_tiers.py check service browser slow
	$(BIN)/python bench/run.py --short

# the nightly budgets: more random games and hypothesis examples (tests/budget.py)
test-long: $(STAMP)
	STELA_TEST_BUDGET=long $(BIN)/python tests/run_tiers.py check service browser slow

bench: $(STAMP)
	$(BIN)/python bench/run.py

# the fault suite on its own PostgreSQL and Redis (README, "Fault suite"); `make test` runs its short mode
chaos: $(STAMP)
	$(BIN)/python -m bench.chaos

chaos-short: $(STAMP)
	$(BIN)/python -m bench.chaos --short

# schemathesis's long stateful run (tests/contract/test_stateful.py); `make test` runs its short mode
fuzz: $(STAMP)
	STELA_TEST_BUDGET=long $(BIN)/python -m pytest -p no:cacheprovider tests/contract/test_stateful.py

openapi: $(STAMP)
	$(BIN)/stela openapi
	$(BIN)/python clients/python/generate.py
	$(MAKE) sdk-ts

# the TypeScript SDK's generated types and its checked-in dist/ (`make openapi` runs it; its tests fail until then)
sdk-ts:
	cd clients/typescript && (test -d node_modules || npm ci --no-audit --no-fund) && npm run generate && npm run build

# the README's screenshots (docs/screenshots/), taken anew by the browser tests that draw them; other runs write
# theirs to build/screenshots/ and leave the tree as it was
screenshots: $(STAMP)
	STELA_SCREENSHOTS=docs $(BIN)/python -m pytest -p no:cacheprovider -q tests/web/test_bot_games.py \
		tests/web/test_pages.py tests/web/test_oauth_consent.py

simulate: $(STAMP)
	for g in tikal coatl tobago goldmine; do $(BIN)/stela simulate --game $$g --games 100 --seed 1 --fast; done

# a local certificate for the compose proxy's HTTPS/HTTP2 port (deploy/compose.tls.yml): data/certs/
cert:
	sh deploy/make-cert.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
