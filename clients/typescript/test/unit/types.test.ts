// The SDK's signatures carry the generated types: documented bodies compile, misused ones do not.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)); // build/test/unit -> the package

function tsc(source: string): string {
  const dir = mkdtempSync(join(ROOT, "build", "typecheck-"));
  writeFileSync(join(dir, "check.ts"), source);
  const done = spawnSync(join(ROOT, "node_modules/.bin/tsc"),
                         ["--noEmit", "--strict", "--skipLibCheck", "--target", "ES2022", "--module", "NodeNext",
                          "--moduleResolution", "NodeNext", join(dir, "check.ts")], { encoding: "utf8" });
  rmSync(dir, { recursive: true, force: true });
  return done.stdout + done.stderr;
}

const HEAD = `import { StelaClient, type Frame } from "${join(ROOT, "src/index.js")}";\n` +
             `declare const c: StelaClient;\n`;

test("documented bodies type-check (defaults optional, options by kind, frames narrowed); misused ones do not", () => {
  const out = tsc(HEAD + `await c.createGame({ kind: "coatl", seats: 2, options: { sacrifice_tokens: true } });
await c.createGame({ kind: "tikal", seats: 3 });
await c.command("g", { type: "tikal.EndTurn" }, { expectedVersion: 3, include: ["view"] });
c.follow({ games: ["g"] }).on("frame", (f: Frame) => {
  if (f.type === "event") console.log(f.event.version);
  if (f.type === "turn") console.log(f.your_turn, f.commands?.length);
  if (f.type === "game.ended") console.log(f.outcome?.winners);
});
await c.createGame({ kind: "chess", seats: 2 });
await c.createGame({ kind: "coatl", seats: 2, options: { variant: "auction" } });
await c.command("g", { type: "tikal.PlaceTile", q: "one", r: 0 });
export {};
`);
  const lines = [...out.matchAll(/check\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]));
  // lines 3-10 are the documented uses; 11: an unknown kind, 12: another kind's option, 13: q is a number
  assert.deepEqual([...new Set(lines)], [11, 12, 13], out);
});
