// dist/ is checked in (so the service and its web client need no Node to serve it): it must be
// exactly what tsc makes of src/ today. `npm test` has just compiled src/ (with its declarations,
// the settings of tsconfig.json) into build/src/ from an emptied build/: that compile is compared,
// not a second one.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)); // build/test/unit -> the package

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path, "utf8"));
    }
  };
  walk(dir);
  return out;
}

test("dist/ is the build of src/ (else: npm run build, and commit dist/)", () => {
  const built = files(join(ROOT, "build", "src"));
  const kept = files(join(ROOT, "dist"));
  assert.ok(built.has("index.js") && built.has("index.d.ts") && built.has("client.js"));
  assert.deepEqual([...kept.keys()].sort(), [...built.keys()].sort(), "the same files");
  for (const [name, text] of built) assert.equal(kept.get(name) === text, true, `dist/${name} is stale`);
});
