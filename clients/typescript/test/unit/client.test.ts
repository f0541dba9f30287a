// Commands, retries and typed errors against a scripted server on a real socket.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { IdempotencyKeyReusedError, NetworkError, NotFoundError, RateLimitedError, RuleViolationError,
         StelaClient, UnauthorizedError, UnavailableError, VersionConflictError } from "../../src/index.js";
import { fakeServer, json, problem, type Handler } from "./fake.js";

const FAST = { baseDelayMs: 1, maxDelayMs: 5 };
const RESULT = { version: 13, events: [], status: "active", to_act: [1], dry_run: false };
const servers: Array<{ close(): Promise<void> }> = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function serve(handler: Handler) {
  const server = await fakeServer(handler);
  servers.push(server);
  const client = new StelaClient({ baseUrl: server.url, token: "tok", retry: FAST });
  return { server, client };
}

const END_TURN = { type: "tikal.EndTurn" } as const;

test("a command sent after a 503 and a dropped connection is retried with the same Idempotency-Key", async () => {
  const { server, client } = await serve((req, res, i) => {
    if (i === 0) return problem(res, 503, "database_unavailable", {}, { "Retry-After": "1" });
    if (i === 1) return res.socket?.destroy();
    json(res, 200, RESULT);
  });
  const result = await client.command("g1", END_TURN, { expectedVersion: 12, include: ["view", "legal"] });
  assert.equal(result.version, 13);
  assert.equal(server.seen.length, 3);
  const keys = server.seen.map((s) => s.headers["idempotency-key"]);
  assert.match(String(keys[0]), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(new Set(keys).size, 1, "one key for every attempt");
  assert.ok(server.seen[1]!.at - server.seen[0]!.at >= 950, "the Retry-After second was waited");
  const first = server.seen[0]!;
  assert.equal(first.headers["authorization"], "Bearer tok");
  assert.equal(first.url.searchParams.get("include"), "view,legal");
  assert.deepEqual(JSON.parse(first.body), { command: END_TURN, expected_version: 12 });
  for (const s of server.seen) assert.equal(s.body, first.body, "the same body every time");
});

test("two calls get two keys, and a given key is sent as given", async () => {
  const { server, client } = await serve((_req, res) => json(res, 200, RESULT));
  await client.command("g", END_TURN);
  await client.command("g", END_TURN);
  await client.command("g", END_TURN, { idempotencyKey: "mine-1" });
  const keys = server.seen.map((s) => s.headers["idempotency-key"]);
  assert.notEqual(keys[0], keys[1]);
  assert.equal(keys[2], "mine-1");
});

test("a version conflict is thrown at once with the current version, never retried", async () => {
  const { server, client } = await serve((_req, res) => problem(res, 409, "version_conflict", { current_version: 15 }));
  const error = await client.command("g", END_TURN, { expectedVersion: 12 }).catch((e: unknown) => e);
  assert.ok(error instanceof VersionConflictError);
  assert.equal(error.currentVersion, 15);
  assert.equal(error.code, "version_conflict");
  assert.equal(server.seen.length, 1);
});

test("a rule violation keeps its kind's code and is not retried", async () => {
  const { server, client } = await serve((_req, res) => problem(res, 409, "tikal.no_path"));
  const error = await client.command("g", END_TURN).catch((e: unknown) => e);
  assert.ok(error instanceof RuleViolationError);
  assert.equal(error.code, "tikal.no_path");
  assert.equal(error.status, 409);
  assert.equal(server.seen.length, 1);
});

test("contention is retried with the same key; a reused key is typed", async () => {
  const { server, client } = await serve((_req, res, i) =>
    i === 0 ? problem(res, 409, "too_much_contention") : problem(res, 422, "idempotency_key_reused"));
  const error = await client.command("g", END_TURN).catch((e: unknown) => e);
  assert.ok(error instanceof IdempotencyKeyReusedError);
  assert.equal(server.seen.length, 2);
  assert.equal(server.seen[0]!.headers["idempotency-key"], server.seen[1]!.headers["idempotency-key"]);
});

test("a 429 honours Retry-After, and the error comes typed when the budget is spent", async () => {
  const { server, client } = await serve((req, res, i) =>
    i === 0 ? problem(res, 429, "rate_limited", {}, { "Retry-After": "1" }) : json(res, 200, { id: "p", name: "Ann" }));
  assert.deepEqual(await client.me(), { id: "p", name: "Ann" });
  assert.ok(server.seen[1]!.at - server.seen[0]!.at >= 950);
  const limited = await serve((_req, res) => problem(res, 429, "rate_limited", {}, { "Retry-After": "0" }));
  const error = await limited.client.me().catch((e: unknown) => e);
  assert.ok(error instanceof RateLimitedError);
  assert.equal(limited.server.seen.length, 8, "every attempt of the default budget");
});

test("a Retry-After longer than the client will wait is thrown at once", async () => {
  const { server, client } = await serve((_req, res) => problem(res, 503, "database_unavailable", {},
                                                               { "Retry-After": "600" }));
  const error = await client.game("g").catch((e: unknown) => e);
  assert.ok(error instanceof UnavailableError);
  assert.equal(error.retryAfterMs, 600_000);
  assert.equal(server.seen.length, 1);
});

test("registration is retried after a 429 but not after a 503 or a dropped connection", async () => {
  const { server } = await serve((_req, res, i) =>
    i === 0 ? problem(res, 429, "rate_limited", {}, { "Retry-After": "0" })
            : json(res, 201, { id: "p1", name: "Ann", token: "new-token" }));
  const { client, player } = await StelaClient.register(server.url, "Ann", { retry: FAST });
  assert.equal(player.token, "new-token");
  assert.equal(client.token, "new-token");
  assert.equal(server.seen.length, 2);

  const down = await serve((_req, res) => problem(res, 503, "database_unavailable"));
  await assert.rejects(StelaClient.register(down.server.url, "Bob", { retry: FAST }), UnavailableError);
  assert.equal(down.server.seen.length, 1);
  const dropped = await serve((_req, res) => res.socket?.destroy());
  await assert.rejects(StelaClient.register(dropped.server.url, "Bob", { retry: FAST }), NetworkError);
  assert.equal(dropped.server.seen.length, 1);
});

test("sign-in checks the token: a refused one is an UnauthorizedError", async () => {
  const { server } = await serve((req, res) =>
    req.headers["authorization"] === "Bearer good" ? json(res, 200, { id: "p1", name: "Ann" })
                                                   : problem(res, 401, "unauthorized"));
  const { me, client } = await StelaClient.signIn(server.url, "good");
  assert.equal(me.id, "p1");
  assert.equal(client.token, "good");
  await assert.rejects(StelaClient.signIn(server.url, "bad"), UnauthorizedError);
});

test("errors are typed by code first, then by status; a non-problem body still becomes one", async () => {
  const { server } = await serve((req, res) => {
    if (req.url.pathname.endsWith("/legal")) return problem(res, 404, "game_not_found");
    res.writeHead(502, { "Content-Type": "text/html" });
    res.end("<h1>bad gateway</h1>");
  });
  // no 20 s retry span (a GET's 502 is retried through a restart): the error's type is the point here
  const client = new StelaClient({ baseUrl: server.url, token: "tok", retry: { ...FAST, minRetrySpanMs: 0 } });
  const missing = await client.legal("nope").catch((e: unknown) => e);
  assert.ok(missing instanceof NotFoundError);
  assert.equal(missing.code, "game_not_found");
  const gateway = await client.game("g").catch((e: unknown) => e);
  assert.equal((gateway as { code: string }).code, "http_502");
  assert.equal((gateway as { status: number }).status, 502);
});

test("rotating the token switches to the new one; revoking it leaves the client anonymous", async () => {
  const { server, client } = await serve((req, res) => {
    if (req.method === "POST") return json(res, 201, { token: "rotated" });
    if (req.method === "DELETE") { res.writeHead(204); return res.end(); }
    json(res, 200, { id: "p1", name: "Ann" });
  });
  assert.equal(await client.rotateToken(), "rotated");
  await client.me();
  await client.revokeToken();
  assert.equal(client.token, undefined);
  assert.deepEqual(server.seen.map((s) => [s.method, s.url.pathname, s.headers["authorization"]]), [
    ["POST", "/v1/players/me/token", "Bearer tok"],
    ["GET", "/v1/players/me", "Bearer rotated"],
    ["DELETE", "/v1/players/me/token", "Bearer rotated"],
  ]);
});
