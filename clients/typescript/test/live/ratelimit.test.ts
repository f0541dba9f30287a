// The RateLimit fields and opt-in pacing against a live server with a small budget (8 requests a 5 s
// window, as the Python SDK's rate-limit tests): the fields are read from real answers, and the same burst
// meets no 429 with pacing (the client waits for the window) and some 429s without.
import assert from "node:assert/strict";
import { test } from "node:test";
import { StelaClient } from "../../src/index.js";
import { server } from "./harness.js";

const QUOTA = 8;
const WINDOW = 5; // seconds
// more than two windows admit: unpaced, it meets no 429 only if spread over three (over 5 s; it takes well under 1 s)
const BURST = 2 * QUOTA + 1;

/** A fetch that counts the server's 429s and keeps the last answer's headers. */
function counting(): { fetch: typeof fetch; refused: number; last: Headers | undefined } {
  const seen = { refused: 0, last: undefined as Headers | undefined, fetch: undefined as unknown as typeof fetch };
  seen.fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 429) seen.refused += 1;
    seen.last = response.headers;
    return response;
  };
  return seen;
}

/** The fields as the server wrote them: `RateLimit: "api";r=5;t=3` and `RateLimit-Policy: "api";q=8;w=5`. */
function fieldsOf(headers: Headers): Record<string, number | string> {
  const state = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(headers.get("RateLimit") ?? "");
  const policy = /^"(\w+)";q=(\d+);w=(\d+)$/.exec(headers.get("RateLimit-Policy") ?? "");
  assert.ok(state && policy, `${headers.get("RateLimit")} / ${headers.get("RateLimit-Policy")}`);
  return { policy: state[1]!, remaining: Number(state[2]), resetSeconds: Number(state[3]), quota: Number(policy[2]),
           windowSeconds: Number(policy[3]) };
}

async function burst(client: StelaClient): Promise<void> {
  for (let n = 0; n < BURST; n++) assert.equal((await client.me()).name, "Ann");
}

test("the RateLimit fields of real answers, and pacing that waits instead of meeting 429", { timeout: 300_000 }, async () => {
  const limits = { STELA_RATE_LIMIT: String(QUOTA), STELA_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW) };
  await server.stop(); // the shared server, restarted with a small budget, and as it was after
  Object.assign(server.env, limits);
  try {
    await server.start();
    const paced = counting();
    const { client: ann } = await StelaClient.register(server.url, "Ann", { pace: true, fetch: paced.fetch });
    const unpaced = counting(); // the same burst from another player (a budget of its own), not paced, at once
    const { client: other } = await StelaClient.register(server.url, "Ann", { fetch: unpaced.fetch });
    await Promise.all([burst(ann), burst(other)]); // each 429 of the second waited out (Retry-After) and retried
    assert.equal(paced.refused, 0, "pacing waits for the window instead of meeting 429");
    assert.ok(ann.http.pacer!.waitedMs > 0, "the burst was more than a window's budget: the pacer waited");
    const limit = ann.rateLimit!;
    assert.deepEqual(limit, fieldsOf(paced.last!), "client.rateLimit: the last answer's fields");
    assert.equal(limit.policy, "api");
    assert.equal(limit.quota, QUOTA);
    assert.equal(limit.windowSeconds, WINDOW);
    assert.ok(limit.remaining! >= 0 && limit.remaining! < QUOTA, JSON.stringify(limit));
    assert.ok(limit.resetSeconds! >= 1 && limit.resetSeconds! <= WINDOW, JSON.stringify(limit));
    assert.ok(unpaced.refused > 0, "without pacing the same burst meets 429");
  } finally {
    await server.stop();
    for (const name of Object.keys(limits)) delete server.env[name];
    await server.start();
  }
});
