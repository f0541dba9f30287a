"""A TypeScript client generated from openapi/openapi.json, with openapi-typescript's default settings, types
commands, views, events, request bodies and every stream's frames.

openapi-typescript (pinned in tests/contract/ts/package.json, installed with `npm ci` from the
project's own lock file) turns the document into types; `tsc --noEmit` then checks client.ts,
which builds a command of each kind and reads a field of each kind's view, streams.ts, which
handles every frame of every stream, and readme.ts, made here from every request body the README
sends (each typed as its path's request body). Files that misuse a field must fail to compile:
they would pass if the types were `unknown`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.contract.readme_bodies import readme_bodies

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
    for name in ("client.ts", "streams.ts", "tsconfig.json"):
        shutil.copy(TS / name, work / name)
    (work / "node_modules").symlink_to(TS / "node_modules")
    done = run(str(TS / "node_modules" / ".bin" / "openapi-typescript"), str(DOCUMENT), "-o", "stela.d.ts", cwd=work)
    assert done.returncode == 0, done.stderr
    (work / "readme.ts").write_text(readme_ts(json.loads(DOCUMENT.read_text())))
    return work


def readme_ts(document: dict) -> str:
    """A TypeScript file that types each of the README's request bodies as its path's request body."""
    lines = ['import type { paths } from "./stela";',
             "type Body<P extends keyof paths, M extends keyof paths[P]> =",
             '  NonNullable<paths[P][M] extends { requestBody?: infer B } ? B : never> extends',
             '  { content: { "application/json": infer J } } ? J : never;']
    for i, (method, path, body) in enumerate(readme_bodies(document)):
        lines.append(f'export const body{i}: Body<"{path}", "{method}"> = {json.dumps(body)};')
    return "\n".join(lines) + "\n"


def tsc(work: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    return run(str(TS / "node_modules" / ".bin" / "tsc"), "--noEmit", "--strict", "--skipLibCheck",
               "--target", "ES2022", "--module", "ES2022", "--moduleResolution", "bundler", *files, cwd=work)


def test_the_generated_client_types_commands_views_and_events_of_every_kind(workdir: Path) -> None:
    done = tsc(workdir, ["client.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readmes_request_bodies_type_check_with_the_default_settings(workdir: Path) -> None:
    assert "kind" in (workdir / "readme.ts").read_text()  # the create-game body is among them
    done = tsc(workdir, ["readme.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_frame_of_every_stream_is_typed(workdir: Path) -> None:
    done = tsc(workdir, ["streams.ts"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_kinds_options_and_frames_refuse_what_the_server_refuses(workdir: Path) -> None:
    (workdir / "worse.ts").write_text(
        'import type { components } from "./stela";\n'
        'type S = components["schemas"];\n'
        'const a: S["GameCreate"] = { kind: "chess", seats: 2 };\n'
        'const b: S["GameCreate"] = { kind: "coatl", seats: 2, options: { sacrifice_tokens: "yes" } };\n'
        'const c: S["GameCreate"] = { kind: "coatl", seats: 2, options: { variant: "auction" } };\n'
        'const d: S["StreamFrame"] = { type: "turn", game_id: "g", version: 1 };\n'
        'export { a, b, c, d };\n')
    done = tsc(workdir, ["worse.ts"])
    assert done.returncode != 0
    for line in (3, 4, 5, 6):
        assert f"worse.ts({line}," in done.stdout, done.stdout


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
