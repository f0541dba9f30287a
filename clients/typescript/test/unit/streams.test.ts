// Resume, de-duplication, back-off and fatal refusals of the streams, on scripted servers.
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, test } from "node:test";
import { type Frame, type GameFrame, StelaClient, UnauthorizedError, NotFoundError } from "../../src/index.js";
import { fakeServer, json, problem, until, type Handler } from "./fake.js";

const FAST = { baseDelayMs: 1, maxDelayMs: 5 };
const servers: Array<{ close(): Promise<void> }> = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function serve(handler: Handler) {
  const server = await fakeServer(handler);
  servers.push(server);
  return { server, client: new StelaClient({ baseUrl: server.url, token: "tok", retry: FAST }) };
}

function sse(res: ServerResponse, frames: Array<[string | null, unknown]>, end = true): void {
  res.writeHead(200, { "Content-Type": "text/event-stream" });
  res.write("retry: 2000\n\n: heartbeat\n\n");
  for (const [id, data] of frames) res.write(`${id === null ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
  if (end) res.end();
}

const game = (id: string, version: number) => ({ id, kind: "coatl", status: "active", version, to_act: [0] });
const event = (version: number) => ({ version, type: "coatl.TurnEnded", data: {}, at: "2026-11-27T04:00:00Z" });
const ev = (gameId: string, version: number) => ({ type: "event", game_id: gameId, event: event(version) });
const describe = (f: Frame | GameFrame): string =>
  f.type === "event" ? `${f.game_id}@${f.event.version}` : f.type === "snapshot" ? `${f.game_id}:snap@${f.game.version}`
    : f.type;

test("the multiplexed stream resumes from its positions, drops what it already delivered, backs off and ends on revocation", async () => {
  const { server, client } = await serve((req, res, i) => {
    if (i === 0) return sse(res, [
      ["3._.p100", { type: "snapshot", game_id: "g1", game: game("g1", 3) }],
      ["3.5.p100", { type: "snapshot", game_id: "g2", game: game("g2", 5) }],
      ["4.5.p100", ev("g1", 4)],
      ["4.5.p100", { type: "ready", games: { g1: 4, g2: 5 }, personal: 100 }],
      ["4.5.p120", { type: "game.your_turn", game_id: "g2", kind: "coatl", status: "active", version: 5, to_act: [0], your_turn: true }],
    ]);
    if (i === 1) return sse(res, [
      ["4.5.p120", ev("g1", 4)], // already delivered: dropped
      ["5.5.p120", ev("g1", 5)],
      ["5.7.p120", ev("g2", 7)], // version 6 was hidden from this viewer: no frame, no gap
    ]);
    if (i === 2) return problem(res, 503, "shutting_down", {}, { "Retry-After": "1" });
    sse(res, [[null, { type: "end", reason: "revoked" }]]);
  });
  const stream = client.follow({ games: ["g1", "g2"], personal: true, legal: true, transport: "fetch", retry: FAST });
  const frames: string[] = [];
  const errors: Array<[string, boolean]> = [];
  stream.on("frame", (f) => frames.push(describe(f)));
  stream.on("error", (e, willRetry) => errors.push([(e as { code?: string }).code ?? String(e), willRetry]));
  await until(() => stream.state === "closed", "the stream to end");

  assert.deepEqual(frames, ["g1:snap@3", "g2:snap@5", "g1@4", "ready", "game.your_turn", "g1@5", "g2@7"]);
  assert.deepEqual(errors, [["shutting_down", true], ["unauthorized", false]]);
  const [first, second, third] = server.seen;
  assert.equal(first!.url.pathname, "/v1/stream");
  assert.equal(first!.url.searchParams.get("games"), "g1,g2");
  assert.equal(first!.url.searchParams.get("legal"), "true");
  assert.equal(first!.url.searchParams.get("after"), null);
  assert.equal(first!.headers["authorization"], "Bearer tok", "fetch sends the token, no ticket in the URL");
  assert.equal(first!.url.searchParams.get("ticket"), null);
  assert.equal(second!.url.searchParams.get("after"), "g1:4,g2:5");
  assert.equal(second!.url.searchParams.get("personal_after"), "120");
  assert.equal(server.seen[3]!.url.searchParams.get("after"), "g1:5,g2:7");
  assert.ok(server.seen[3]!.at - third!.at >= 950, "the 503's Retry-After was waited");
  assert.deepEqual(stream.positions, { g1: 5, g2: 7 });
});

test("a game that does not exist ends the stream with a NotFoundError, without retrying", async () => {
  const { server, client } = await serve((_req, res) => problem(res, 404, "game_not_found"));
  const stream = client.follow({ games: ["nope"], transport: "fetch" });
  const failures: unknown[] = [];
  stream.on("error", (e, willRetry) => { if (!willRetry) failures.push(e); });
  await until(() => stream.state === "closed", "the stream to end");
  assert.ok(failures[0] instanceof NotFoundError);
  assert.equal(server.seen.length, 1);
});

test("changing the set of games reconnects with the positions of the games kept", async () => {
  const { server, client } = await serve((req, res, i) => {
    if (i === 0) return sse(res, [["2", { type: "snapshot", game_id: "g1", game: game("g1", 2) }]], false);
    sse(res, [["2._", { type: "snapshot", game_id: "g3", game: game("g3", 9) }]], false);
  });
  const stream = client.follow({ games: ["g1"], transport: "fetch" });
  const frames: string[] = [];
  stream.on("frame", (f) => frames.push(describe(f)));
  await until(() => frames.length === 1, "the first snapshot");
  stream.setGames(["g1", "g3"]);
  await until(() => frames.length === 2, "the new game's snapshot");
  stream.close();
  assert.deepEqual(frames, ["g1:snap@2", "g3:snap@9"]);
  assert.equal(server.seen[1]!.url.searchParams.get("games"), "g1,g3");
  assert.equal(server.seen[1]!.url.searchParams.get("after"), "g1:2");
});

/** A stand-in for the browser's EventSource, driven by the test. */
class FakeEventSource {
  static made: FakeEventSource[] = [];
  readyState = 0;
  onopen: ((ev: unknown) => unknown) | null = null;
  onmessage: ((ev: { type: string; data: string; lastEventId: string }) => unknown) | null = null;
  onerror: ((ev: unknown) => unknown) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.made.push(this);
  }
  open(): void { this.readyState = 1; this.onopen?.({}); }
  send(id: string, data: unknown): void { this.onmessage?.({ type: "message", data: JSON.stringify(data), lastEventId: id }); }
  fail(): void { this.readyState = 2; this.onerror?.({}); }
  close(): void { this.readyState = 2; }
}

test("a game stream that a new EventSource restarts gets the events it missed, not a second snapshot", async () => {
  (globalThis as { EventSource?: unknown }).EventSource = FakeEventSource;
  try {
    let tickets = 0;
    const { server, client } = await serve((req, res) => {
      if (req.url.pathname.endsWith("/stream-tickets")) return json(res, 201, { ticket: `t${++tickets}`, expires_at: "x" });
      if (req.url.pathname.endsWith("/events")) {
        const from = Number(req.url.searchParams.get("after"));
        return json(res, 200, { version: 8, events: [5, 7, 8].filter((v) => v > from).map(event) });
      }
      sse(res, []); // the probe after EventSource gave up: the stream is fine again
    });
    const stream = client.followGame("g1", { retry: FAST });
    const frames: string[] = [];
    stream.on("frame", (f) => frames.push(describe(f)));
    await until(() => FakeEventSource.made.length === 1, "the first EventSource");
    const first = FakeEventSource.made[0]!;
    assert.match(first.url, /\/v1\/games\/g1\/stream\?frames=message&ticket=t1$/);
    first.open();
    first.send("3", { type: "snapshot", game: game("g1", 3) });
    first.send("4", event(4));
    first.fail(); // closed for good (say, a 503): the driver reconnects with a new ticket
    await until(() => FakeEventSource.made.length === 2, "a second EventSource");
    const second = FakeEventSource.made[1]!;
    assert.match(second.url, /ticket=t2$/);
    second.open();
    second.send("7", { type: "snapshot", game: game("g1", 7) }); // a new EventSource cannot resume
    second.send("8", event(8));
    await until(() => frames.length === 5, "the missed events and the live one");
    stream.close();
    assert.deepEqual(frames, ["g1:snap@3", "g1@4", "g1@5", "g1@7", "g1@8"]);
    const reads = server.seen.filter((s) => s.url.pathname.endsWith("/events"));
    assert.equal(reads[0]!.url.searchParams.get("after"), "4");
    assert.equal(reads[0]!.headers["authorization"], "Bearer tok");
  } finally {
    delete (globalThis as { EventSource?: unknown }).EventSource;
  }
});

test("a refused token ends a ticketed stream: the ticket request itself is refused", async () => {
  (globalThis as { EventSource?: unknown }).EventSource = FakeEventSource;
  try {
    const { client } = await serve((_req, res) => problem(res, 401, "unauthorized"));
    const stream = client.follow({ games: ["g1"], retry: FAST });
    const failures: unknown[] = [];
    stream.on("error", (e, willRetry) => { if (!willRetry) failures.push(e); });
    await until(() => stream.state === "closed", "the stream to end");
    assert.ok(failures[0] instanceof UnauthorizedError);
  } finally {
    delete (globalThis as { EventSource?: unknown }).EventSource;
  }
});

test("a fetch stream silent past its idle timeout is dropped and resumed from its position", async () => {
  const { server, client } = await serve((req, res, i) => {
    if (i === 0) return sse(res, [["1", { type: "snapshot", game_id: "g1", game: game("g1", 1) }]], false); // then silence
    sse(res, [["2", ev("g1", 2)]], false);
  });
  const stream = client.follow({ games: ["g1"], transport: "fetch", idleTimeoutMs: 300, retry: FAST });
  const frames: string[] = [];
  const errors: string[] = [];
  stream.on("frame", (f) => frames.push(describe(f)));
  stream.on("error", (e) => errors.push(String(e)));
  await until(() => frames.length === 2, "the resumed frame");
  stream.close();
  assert.deepEqual(frames, ["g1:snap@1", "g1@2"]);
  assert.equal(server.seen[1]!.url.searchParams.get("after"), "g1:1");
  assert.match(errors[0]!, /no bytes for 300 ms/);
});

test("an arena's standings frames reach the listener and leave the resume position at the last event", async () => {
  const named = (res: ServerResponse, frames: Array<[string, number | null, unknown]>) => {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    for (const [name, id, data] of frames) res.write(`event: ${name}\n${id === null ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
    res.end();
  };
  const arenaEvent = (version: number, type = "arena.GamePaired") => ({ version, type, data: {}, at: "2026-11-29T14:00:00Z" });
  const { server, client } = await serve((req, res, i) => {
    if (i === 0) return named(res, [
      ["snapshot", 3, { id: "a1", version: 3, standings: [] }],
      ["arena.GamePaired", 4, arenaEvent(4)],
      ["standings", 4, { id: "a1", version: 4, standings: [{ rank: 1, points: 2 }] }],
    ]);
    named(res, [
      ["arena.GamePaired", 4, arenaEvent(4)], // already delivered: dropped
      ["tournament.TournamentEnded", 5, arenaEvent(5, "tournament.TournamentEnded")],
      ["standings", 5, { id: "a1", version: 5, standings: [{ rank: 1, points: 4 }] }],
    ]);
  });
  const stream = client.followArena("a1", { retry: FAST });
  const frames: string[] = [];
  stream.on("frame", (f) => frames.push(f.type === "event" ? `${f.event.type}@${f.event.version}`
    : `${f.type}:${JSON.stringify((f.state as { standings: unknown }).standings)}`));
  await until(() => stream.state === "closed", "the arena's end");
  assert.deepEqual(frames, ["snapshot:[]", "arena.GamePaired@4", 'standings:[{"rank":1,"points":2}]',
                            "tournament.TournamentEnded@5", 'standings:[{"rank":1,"points":4}]']);
  assert.equal(server.seen[1]!.headers["last-event-id"], "4");  // the standings frame moved no position
});
