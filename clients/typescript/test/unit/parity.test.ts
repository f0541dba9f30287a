// What issue 45 added to the SDK, on scripted servers: a spectator's empty multiplexed stream waits for
// `setGames`; a keyed command's retries outlast a 16 s outage; the RateLimit fields and pacing; PKCE.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, test } from "node:test";
import { authorizationRequest, codeFromRedirect, OAuthDeniedError, queryOf, s256, StateMismatchError,
         StelaClient, parseRateLimit } from "../../src/index.js";
import { fakeServer, json, problem, until, type Handler } from "./fake.js";

const servers: Array<{ close(): Promise<void> }> = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function serve(handler: Handler) {
  const server = await fakeServer(handler);
  servers.push(server);
  return server;
}

test("a spectator's follow({ games: [] }) connects to nothing until setGames, then follows the game", async () => {
  const server = await serve((req, res) => {
    if (!req.url.searchParams.get("games")) return problem(res, 400, "invalid_request");  // as the server does
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(`id: 3._\ndata: ${JSON.stringify({ type: "snapshot", game_id: "g1", game: { id: "g1", version: 3 } })}\n\n`);
  });
  const spectator = new StelaClient({ baseUrl: server.url });
  const stream = spectator.follow({ games: [], transport: "fetch" });
  const frames: string[] = [];
  const errors: unknown[] = [];
  stream.on("frame", (f) => frames.push(f.type));
  stream.on("error", (e) => errors.push(e));
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(stream.state, "idle");
  assert.equal(server.seen.length, 0, "nothing was asked of the server");
  stream.setGames(["g1"]);
  await until(() => frames.length > 0, "the game's snapshot");
  assert.deepEqual(frames, ["snapshot"]);
  assert.equal(server.seen[0]!.url.searchParams.get("games"), "g1");
  assert.deepEqual(errors, []);
  stream.setGames([]);
  await until(() => stream.state === "idle", "idle again with no game");
  stream.close();
});

test("a keyed command is retried with its key through a 16 s outage and acts once", { timeout: 60_000 }, async () => {
  const server = await serve((req, res) => json(res, 200, { version: 2, status: "active", to_act: [1], events: [] }));
  const started = Date.now();
  const keys: string[] = [];
  const flaky: typeof fetch = (input, init) => {
    keys.push(new Headers(init?.headers).get("Idempotency-Key") ?? "");
    if (Date.now() - started < 16_000) return Promise.reject(new TypeError("fetch failed: connection refused"));
    return fetch(input, init);
  };
  const client = new StelaClient({ baseUrl: server.url, token: "tok", fetch: flaky });
  const result = await client.command("g1", { type: "coatl.EndTurn" }, { expectedVersion: 1 });
  assert.equal(result.version, 2);
  assert.ok(Date.now() - started >= 16_000 && keys.length > 1);
  assert.equal(new Set(keys).size, 1, "the same key on every attempt");
  assert.equal(server.seen.length, 1, "acted once");
});

test("the RateLimit fields are read, and a paced client waits for the window instead of meeting 429", async () => {
  let resetAt = 0;
  const server = await serve((req, res) => {
    const now = Date.now();
    if (now < resetAt) return problem(res, 429, "rate_limited", {}, { "Retry-After": "1" });
    resetAt = now + 1000;  // one request per one-second window
    json(res, 200, { id: "p1", name: "Ann" }, { RateLimit: '"api";r=0;t=1', "RateLimit-Policy": '"api";q=1;w=1' });
  });
  const paced = new StelaClient({ baseUrl: server.url, token: "tok", pace: true, retry: { maxAttempts: 1 } });
  for (let i = 0; i < 3; i++) await paced.me();
  assert.deepEqual(paced.rateLimit, { policy: "api", remaining: 0, resetSeconds: 1, quota: 1, windowSeconds: 1 });
  assert.ok(paced.http.pacer!.waitedMs > 0);
  const unpaced = new StelaClient({ baseUrl: server.url, token: "tok", retry: { maxAttempts: 1, minRetrySpanMs: 0 } });
  await assert.rejects(async () => { await unpaced.me(); await unpaced.me(); }, { code: "rate_limited" });
  assert.equal(parseRateLimit(new Headers()), undefined);
});

test("an authorization request carries state and an S256 challenge, and the redirect's state is checked", async () => {
  const request = await authorizationRequest({ baseUrl: "https://stela.example/", clientId: "app-1",
                                               redirectUri: "http://127.0.0.1:8765/back", scopes: ["read", "play"] });
  const query = new URLSearchParams(queryOf(request));
  assert.ok(request.url.startsWith("https://stela.example/consent.html?"));
  assert.equal(query.get("code_challenge_method"), "S256");
  assert.equal(query.get("code_challenge"), request.challenge);
  assert.equal(query.get("scope"), "read play");
  assert.equal(query.get("state"), request.state);
  assert.ok(request.verifier.length >= 43 && request.verifier.length <= 128);
  assert.equal(await s256(request.verifier), createHash("sha256").update(request.verifier).digest("base64url"));
  const other = await authorizationRequest({ baseUrl: "https://stela.example", clientId: "app-1",
                                             redirectUri: "http://127.0.0.1:8765/back", scopes: ["read"] });
  assert.notEqual(other.state, request.state);
  assert.equal(codeFromRedirect(request, `http://127.0.0.1:8765/back?code=abc&state=${request.state}`), "abc");
  assert.throws(() => codeFromRedirect(request, `http://127.0.0.1:8765/back?code=abc&state=${other.state}`),
                StateMismatchError);
  assert.throws(() => codeFromRedirect(request, `http://127.0.0.1:8765/back?error=access_denied&state=${request.state}`),
                OAuthDeniedError);
});
