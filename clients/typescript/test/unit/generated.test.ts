// The checked-in types are exactly what openapi-typescript makes of openapi/openapi.json today.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)); // build/test/unit -> the package

test("src/generated/openapi.ts is in sync with openapi/openapi.json (else: npm run generate)", () => {
  const out = join(mkdtempSync(join(tmpdir(), "stela-ts-")), "openapi.ts");
  execFileSync(join(ROOT, "node_modules/.bin/openapi-typescript"), [join(ROOT, "../../openapi/openapi.json"), "-o", out],
               { stdio: "pipe" });
  const fresh = readFileSync(out, "utf8");
  const kept = readFileSync(join(ROOT, "src/generated/openapi.ts"), "utf8");
  assert.ok(fresh.includes("createGame") && fresh.length > 10_000, "the generator produced the API's types");
  assert.equal(kept === fresh, true, "src/generated/openapi.ts drifted from openapi/openapi.json: run `npm run generate`");
});
