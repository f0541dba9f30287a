"""A TypeScript client generated from openapi/openapi.json types commands, views and events.

openapi-typescript (pinned in tests/contract/ts/package.json, installed with `npm ci` from the
project's own lock file) turns the document into types; `tsc --noEmit` then checks client.ts,
which builds a command of each kind and reads a field of each kind's view. A second file that
misuses a command's field must fail to compile: it would pass if the types were `unknown`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

# one xdist worker runs the module: its fixture installs node_modules in place, once
pytestmark = pytest.mark.xdist_group("typescript")

TS = Path(__file__).parent / "ts"
DOCUMENT = Path(__file__).parents[2] / "openapi" / "openapi.json"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    assert shutil.which("npm"), "Node.js and npm are needed (this machine's kind has them)"
    if not (TS / "node_modules" / ".bin" / "tsc").exists():
        done = run("npm", "ci", "--no-audit", "--no-fund", cwd=TS)
        assert done.returncode == 0, done.stderr
    work = tmp_path_factory.mktemp("ts")
    for name in ("client.ts", "tsconfig.json"):
        shutil.copy(TS / name, work / name)
    (work / "node_modules").symlink_to(TS / "node_modules")
    done = run(str(TS / "node_modules" / ".bin" / "openapi-typescript"), str(DOCUMENT), "-o", "stela.d.ts", cwd=work)
    assert done.returncode == 0, done.stderr
    return work


def tsc(work: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    return run(str(TS / "node_modules" / ".bin" / "tsc"), "--noEmit", "--strict", "--skipLibCheck",
               "--target", "ES2022", "--module", "ES2022", "--moduleResolution", "bundler", *files, cwd=work)


def test_the_generated_client_types_commands_views_and_events_of_every_kind(workdir: Path) -> None:
    done = tsc(workdir, ["client.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_misused_command_or_view_field_does_not_type_check(workdir: Path) -> None:
    (workdir / "bad.ts").write_text(
        'import type { components } from "./stela";\n'
        'const c: components["schemas"]["Command"] = { type: "tikal.PlaceTile", q: "one", r: 0 };\n'
        'function f(v: components["schemas"]["View"]) { if (v.kind === "coatl") { return v.no_such_field; } }\n'
        'export { c, f };\n')
    done = tsc(workdir, ["bad.ts"])
    assert done.returncode != 0
    assert "bad.ts(2," in done.stdout and "not assignable to type 'number'" in done.stdout  # q is a number
    assert "bad.ts(3," in done.stdout and "no_such_field" in done.stdout
