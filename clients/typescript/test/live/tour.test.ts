// The README's API tour, written with the SDK (examples/tour.ts), runs against a live server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RateLimit } from "../../src/index.js";
import { RATE_LIMIT, RATE_LIMIT_WINDOW, server } from "./harness.js";

const TOUR = fileURLToPath(new URL("../../examples/tour.js", import.meta.url)); // build/examples/tour.js

test("the README's API tour runs through the SDK", { timeout: 300_000 }, async () => {
  await server.start();
  const { stdout } = await promisify(execFile)(process.execPath, [TOUR, server.url], { timeout: 120_000 });
  const lines = Object.fromEntries(stdout.trim().split("\n").map((line) => {
    const space = line.indexOf(" ");
    return [line.slice(0, space), line.slice(space + 1)];
  }));
  assert.deepEqual(lines["kinds"]!.split(" ").sort(), ["coatl", "goldmine", "tikal", "tobago"]);
  assert.match(lines["to_act"]!, /^\[[0-9,]+\]$/);
  const first = JSON.parse(lines["legal"]!) as { type: string };
  assert.match(first.type, /^coatl\./);
  const played = JSON.parse(lines["played"]!) as { version: number; events: string[]; phase: string; legal: number };
  assert.ok(played.version > 0 && played.events.length > 0 && typeof played.phase === "string");
  assert.equal(typeof played.legal, "number");
  const multiplexed = lines["multiplexed"]!.split(" ");
  // the game's snapshot comes before its other frames; the personal notices may come before or after it
  const snapshot = multiplexed.indexOf("snapshot");
  assert.ok(snapshot >= 0 && multiplexed.slice(0, snapshot).every((t) => t.startsWith("game.")), `${multiplexed}`);
  assert.equal(multiplexed.at(-1), "ready");
  assert.ok(multiplexed.some((t) => /^turn:[1-9]/.test(t)), `Bob's turn with his legal commands: ${multiplexed}`);
  assert.ok(multiplexed.includes("game.state"), "the personal notices of Bob's games");
  assert.match(lines["frame"]!, new RegExp(`^snapshot ${played.version}$`), "the stream starts with the game as it is");
  // the last answer's RateLimit fields: Ann's session token is new, and the tour spent a request or two of it
  const limit = JSON.parse(lines["ratelimit"] ?? "null") as RateLimit | null;
  assert.ok(limit, `the ratelimit line: ${lines["ratelimit"]}`);
  assert.equal(limit.policy, "api");
  assert.equal(limit.quota, RATE_LIMIT);
  assert.equal(limit.windowSeconds, RATE_LIMIT_WINDOW);
  assert.ok(limit.remaining! < RATE_LIMIT && limit.remaining! >= RATE_LIMIT - 10, JSON.stringify(limit));
  assert.ok(limit.resetSeconds! >= 1 && limit.resetSeconds! <= RATE_LIMIT_WINDOW, JSON.stringify(limit));
});
