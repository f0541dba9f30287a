"""The TypeScript SDK (clients/typescript) passes its own suites, run from here so `make test` runs them.

`npm ci` installs the pinned dependencies from the package's lock file (tests/sdk_typescript/npm.py: again
only when the lock changes; tests/contract/test_typescript_client.py uses the same install), `npm test`
compiles the SDK, its tests and examples once (strict; the SDK's type tests are in that compile), checks
that the generated types match openapi/openapi.json and that the checked-in dist/ is that compile of src/,
and runs the unit tests; `npm run test:live` then runs the SDK against one live `stela serve` on a fresh
database, every live file in one Node process (test/live/suite.ts): in Node, in Debian's Chromium from
another origin (both with a restart mid-game), the transparency log, the whole-API surface and the
README's API tour (examples/tour.ts).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import fresh_database
from tests.sdk_typescript.npm import PACKAGE, node_modules

# one xdist worker runs the module: its fixture compiles in place, once
pytestmark = pytest.mark.xdist_group("typescript-sdk")


def run(args: list[str], timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, check=False, cwd=PACKAGE, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def package() -> Path:
    node_modules()  # clients/typescript's, shared with tests/contract/test_typescript_client.py
    done = run(["npm", "test"], timeout=600)  # the compile, drift checks of the generated types and of dist/, unit tests
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    assert "# fail 0" in done.stdout or "ℹ fail 0" in done.stdout, done.stdout[-3000:]
    return PACKAGE


@pytest.fixture(scope="module")
def exports(package: Path) -> dict:
    """What dist/index.js exports, as one Node process reads it: the names, and the SDK's OPERATIONS table."""
    script = ("import('./dist/index.js').then(m => console.log(JSON.stringify("
              "{ names: Object.keys(m).sort(), operations: m.OPERATIONS })))")
    done = run(["node", "--input-type=module", "-e", script], timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_sdk_builds_and_passes_its_unit_tests(package: Path, exports: dict) -> None:
    """dist/ is an ES module with its declarations: the names a front end imports are there."""
    for name in ("StelaClient", "MultiStream", "GameStream", "VersionConflictError", "RuleViolationError"):
        assert name in exports["names"]
    assert (package / "dist" / "index.d.ts").exists()


def live_command(package: Path) -> list[str]:
    """`npm run test:live` without its compile, which the `package` fixture's `npm test` has just done
    (the same clean and `tsc`): the script's last command, as argv."""
    scripts = json.loads((package / "package.json").read_text())["scripts"]
    compile_, _, live = scripts["test:live"].rpartition(" && ")
    assert scripts["test"].startswith(compile_ + " && "), scripts
    return shlex.split(live)


def test_the_sdk_against_a_live_server_in_node_and_in_chromium_and_the_readme_tour(package: Path) -> None:
    with fresh_database("stela_sdk_ts") as dsn:
        env = {"DATABASE_URL": dsn, "STELA_BIN": str(Path(sys.executable).with_name("stela"))}
        done = run(live_command(package), timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    assert "ℹ fail 0" in done.stdout and "ℹ pass 0" not in done.stdout, done.stdout[-3000:]


def sdk_table(exports: dict) -> list[tuple[str, str, str, str]]:
    """(operation, Python async, Python sync, TypeScript) for every operation of openapi/openapi.json."""
    # the Python SDK, beside the TypeScript one
    from stela_client import OPERATIONS as PYTHON

    typescript = exports["operations"]
    doc = json.loads((PACKAGE.parents[1] / "openapi" / "openapi.json").read_text())
    rows = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                name = op["operationId"]
                python = ", ".join(PYTHON.get(name, []))
                rows.append((f"{name} ({method.upper()} {path})", python, python, ", ".join(typescript.get(name, []))))
    return rows


def test_every_operation_of_the_document_has_a_method_in_both_sdks(exports: dict) -> None:
    """The feature table: an operation without a method in either SDK fails (none is left out on purpose)."""
    rows = sdk_table(exports)
    assert len(rows) >= 70
    missing = [row for row in rows if not all(row[1:])]
    assert not missing, missing
    print("\n| operation | Python async | Python sync | TypeScript |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
