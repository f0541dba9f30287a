"""A TypeScript client generated from openapi/openapi.json, with openapi-typescript's default settings, types
commands, views, events, request bodies and every stream's frames.

openapi-typescript turns the document into types; `tsc --noEmit` (the settings of tests/contract/ts/tsconfig.json)
then checks client.ts, which builds a command of each kind and reads a field of each kind's view, streams.ts,
which handles every frame of every stream, and readme.ts, made here from every request body the README
sends (each typed as its path's request body). Files that misuse a field must fail to compile: they
would pass if the types were `unknown`. Both tools are the ones clients/typescript pins (the same
versions), from its node_modules: one `npm ci` serves this module and tests/sdk_typescript. One tsc run
checks every file; each test reads its own file's errors.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.contract.readme_bodies import readme_bodies
from tests.sdk_typescript.npm import node_modules

# one xdist worker runs the module: its fixture installs node_modules in place, once
pytestmark = pytest.mark.xdist_group("typescript")

TS = Path(__file__).parent / "ts"
DOCUMENT = Path(__file__).parents[2] / "openapi" / "openapi.json"
# misuses: each numbered line must fail to compile
WORSE = ('import type { components } from "./stela";\n'
         'type S = components["schemas"];\n'
         'const a: S["GameCreate"] = { kind: "chess", seats: 2 };\n'
         'const b: S["GameCreate"] = { kind: "coatl", seats: 2, options: { sacrifice_tokens: "yes" } };\n'
         'const c: S["GameCreate"] = { kind: "coatl", seats: 2, options: { variant: "auction" } };\n'
         'const d: S["StreamFrame"] = { type: "turn", game_id: "g", version: 1 };\n'
         'export { a, b, c, d };\n')
BAD = ('import type { components } from "./stela";\n'
       'const c: components["schemas"]["Command"] = { type: "tikal.PlaceTile", q: "one", r: 0 };\n'
       'function f(v: components["schemas"]["View"]) { if (v.kind === "coatl") { return v.no_such_field; } }\n'
       'export { c, f };\n')
FILES = ("client.ts", "streams.ts", "readme.ts", "worse.ts", "bad.ts")
ERROR = re.compile(r"^(?P<file>[^\s(]+)\((?P<line>\d+),\d+\): error ", re.MULTILINE)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, check=False, cwd=cwd, capture_output=True, text=True, timeout=300)


class Checked:
    """The one tsc run over FILES: its output and the lines of each file that have an error."""

    def __init__(self, work: Path, done: subprocess.CompletedProcess[str]) -> None:
        self.work = work
        self.output = done.stdout + done.stderr
        self.lines: dict[str, set[int]] = {}
        self.messages: dict[tuple[str, int], str] = {}  # (file, line) -> its diagnostics' text
        matches = list(ERROR.finditer(self.output))
        for match, after in zip(matches, [*matches[1:], None]):
            where = (match["file"], int(match["line"]))
            self.lines.setdefault(where[0], set()).add(where[1])
            text = self.output[match.start():after.start() if after else len(self.output)]
            self.messages[where] = self.messages.get(where, "") + text
        # an error not in a file (a setting, a missing file) would hide every file's own errors
        assert self.output.count("error TS") == len(ERROR.findall(self.output)), self.output

    def clean(self, name: str) -> None:
        assert name not in self.lines, self.output


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> Checked:
    modules = node_modules()
    work = tmp_path_factory.mktemp("ts")
    for name in ("client.ts", "streams.ts"):
        shutil.copy(TS / name, work / name)
    (work / "node_modules").symlink_to(modules)
    done = run(str(modules / ".bin" / "openapi-typescript"), str(DOCUMENT), "-o", "stela.d.ts", cwd=work)
    assert done.returncode == 0, done.stderr
    (work / "readme.ts").write_text(readme_ts(json.loads(DOCUMENT.read_text())))
    (work / "worse.ts").write_text(WORSE)
    (work / "bad.ts").write_text(BAD)
    config = json.loads((TS / "tsconfig.json").read_text())
    config["compilerOptions"]["types"] = []  # no @types/node: these are plain TypeScript files
    config["files"] = list(FILES)
    (work / "tsconfig.json").write_text(json.dumps(config))
    done = run(str(modules / ".bin" / "tsc"), "-p", "tsconfig.json", "--pretty", "false", cwd=work)
    assert done.returncode != 0  # worse.ts and bad.ts must fail
    return Checked(work, done)


def readme_ts(document: dict) -> str:
    """A TypeScript file that types each of the README's request bodies as its path's request body."""
    lines = ['import type { paths } from "./stela";',
             "type Body<P extends keyof paths, M extends keyof paths[P]> =",
             '  NonNullable<paths[P][M] extends { requestBody?: infer B } ? B : never> extends',
             '  { content: { "application/json": infer J } } ? J : never;']
    for i, (method, path, body) in enumerate(readme_bodies(document)):
        lines.append(f'export const body{i}: Body<"{path}", "{method}"> = {json.dumps(body)};')
    return "\n".join(lines) + "\n"


def test_the_generated_client_types_commands_views_and_events_of_every_kind(checked: Checked) -> None:
    checked.clean("client.ts")


def test_the_readmes_request_bodies_type_check_with_the_default_settings(checked: Checked) -> None:
    assert "kind" in (checked.work / "readme.ts").read_text()  # the create-game body is among them
    checked.clean("readme.ts")


def test_every_frame_of_every_stream_is_typed(checked: Checked) -> None:
    checked.clean("streams.ts")


def test_kinds_options_and_frames_refuse_what_the_server_refuses(checked: Checked) -> None:
    assert checked.lines.get("worse.ts") == {3, 4, 5, 6}, checked.output


def test_a_misused_command_or_view_field_does_not_type_check(checked: Checked) -> None:
    assert checked.lines.get("bad.ts") == {2, 3}, checked.output
    assert "not assignable to type 'number'" in checked.messages["bad.ts", 2], checked.output  # q is a number
    assert "no_such_field" in checked.messages["bad.ts", 3], checked.output
