"""Schemathesis against a running app: examples, coverage, fuzzing and stateful phases, every check.

No generated request may produce a 5xx, and every response must match the OpenAPI document.
The SSE endpoint is left out (an endless stream); tests/service/live/test_sse.py covers it. Sized by
tests/budget.py, every operation in every phase on both budgets: the short one (`make test`, CI) sends 6
generated cases per operation in the fuzzing and stateful phases and, in the coverage phase, the first of
each kind of case per operation and every 6th after it (tests/contract/st_hooks.py); the long one
(`make test-long`) 50 and every coverage case. The run's token stays valid throughout: the calls that end the
token they carry (rotate, revoke) get tokens of their own (st_hooks.py), and an operation the token never gets
past (only 401/403) fails the run (schemathesis.toml).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from service.edge.app import create_app
from testkit.live import serving
from tests.budget import sized

pytestmark = pytest.mark.slow  # a fuzzer: slow tier; one test with its own server, so it needs no xdist group
HERE = Path(__file__).parent
EXAMPLES = os.environ.get("STELA_SCHEMATHESIS_EXAMPLES", str(sized(6, 50)))
REPORT = ["--report", "ndjson", "--report-ndjson-path", os.environ["STELA_SCHEMATHESIS_NDJSON"]] \
    if os.environ.get("STELA_SCHEMATHESIS_NDJSON") else []  # every case and answer, to count them
COVERAGE_EVERY = sized(6, 1)  # of each kind of coverage case per operation, the first and every n-th after it


def test_schemathesis_finds_no_server_errors_and_no_schema_violations(settings, games, tmp_path):
    with serving(create_app(settings, games=games)) as url:
        with httpx.Client(base_url=url) as client:
            token = client.post("/v1/players", json={"name": "fuzzer"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            game = client.post("/v1/games", json={"kind": "tally", "seats": 2}, headers=auth)
            assert game.status_code == 201
        st = Path(sys.executable).with_name("st")
        result = subprocess.run(
            [str(st), "--config-file", str(HERE / "schemathesis.toml"), "run", f"{url}/schema/openapi.json",
             "--phases", "examples,coverage,fuzzing,stateful",  # every check: schemathesis's default (a
             # `--checks all` would also re-enable the one check schemathesis.toml turns off on one operation)
             "--exclude-path-regex", "/stream$", "--max-examples", EXAMPLES,
             "--workers", "1", "--seed", "1", "--no-color", *REPORT],
            capture_output=True, text=True, timeout=1800, cwd=tmp_path,
            env={**os.environ, "SCHEMATHESIS_HOOKS": str(HERE / "st_hooks.py"),
                 "STELA_COVERAGE_EVERY": str(COVERAGE_EVERY), "STELA_ST_TOKEN": token, "STELA_ST_URL": url})
    print(result.stdout)  # each phase's time and count, and the warnings (shown with -s or on a failure)
    tail = result.stdout[-6000:]
    assert result.returncode == 0, tail
