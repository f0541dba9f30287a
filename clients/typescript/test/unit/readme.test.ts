// The README's tour is examples/tour.ts verbatim, so the live test that runs the example runs the README.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const root = new URL("../../../", import.meta.url); // build/test/unit -> the package
test("the README's tour block is examples/tour.ts, verbatim", () => {
  const readme = readFileSync(new URL("README.md", root), "utf8");
  const tour = readFileSync(new URL("examples/tour.ts", root), "utf8");
  const section = readme.slice(readme.indexOf("## A tour"));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(block, "a ts block under ## A tour");
  assert.equal(block[1], tour);
});
