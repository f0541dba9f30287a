// The SDK's dist/ build in real Chromium, on another origin than a live server that is restarted
// mid-game while the page plays: commands ride out the restart with their Idempotency-Keys, and
// each follower's EventSource resumes, every event it may see delivered exactly once, in order.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { StelaClient, type Event, type GameFrame } from "../../src/index.js";
import { launch, staticOrigin } from "./browser.js";
import { assertSeatsView, saysEnded, server, until } from "./harness.js";

interface Follower { frames: Array<GameFrame & { game_id: string }>; opens: number; connects: number; errors: unknown[];
                     positions: Record<string, number> }
interface Report { games: string[]; commands: number; errors: string[]; followers: Record<string, Follower> }

let browser: Browser;
let origin: Awaited<ReturnType<typeof staticOrigin>>;

before(async () => {
  await server.start();
  browser = await launch();
  origin = await staticOrigin();
});
after(async () => {
  await browser?.close();
  origin?.server.close();
});

async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  const logs: string[] = [];
  page.on("pageerror", (error) => logs.push(String(error)));
  await page.goto(`${origin.origin}/test/browser/index.html`);
  await until(() => page.evaluate("window.stela && window.stela.ready").catch(() => false), "the page's module");
  assert.deepEqual(logs, []);
  return page;
}

/** Play in the page while the server restarts under it; resolves with the final report. */
async function playAcrossRestart(page: Page): Promise<Report> {
  const playing = page.evaluate("window.stela.play(1000)") as Promise<Record<string, string>>;
  await until(() => page.evaluate("window.stela.report().commands >= 15"), "some commands before the restart");
  await server.stop(); // mid-game, mid-play: requests fail and are retried, streams drop and resume
  await server.start();
  const statuses = await playing;
  assert.ok(Object.values(statuses).every((s) => s === "finished"), JSON.stringify(statuses));
  return (await page.evaluate("window.stela.report()")) as Report;
}

async function caughtUp(page: Page, games: string[]): Promise<Report> {
  const spectator = new StelaClient({ baseUrl: server.url });
  const finals = await Promise.all(games.map(async (id) => (await spectator.game(id)).version));
  return until(async () => {
    const report = (await page.evaluate("window.stela.report()")) as Report;
    const done = Object.values(report.followers).every((f) =>
      games.every((id, i) => f.positions[id] === undefined || f.positions[id]! >= finals[i]!));
    return done ? report : undefined;
  }, "every follower to reach the end");
}

/** The frames of one game a follower got: one snapshot, then exactly the events as `seat` saw them. */
async function assertExactlyOnce(follower: Follower, gameId: string, seat: number | null): Promise<void> {
  const frames = follower.frames.filter((f) => f.game_id === gameId && (f.type === "snapshot" || f.type === "event"));
  const [snapshot, ...rest] = frames;
  assert.equal(snapshot?.type, "snapshot");
  assert.equal(snapshot.game.your_seat ?? null, seat);
  assert.ok(rest.every((f) => f.type === "event"), "one snapshot, then only events");
  const events: Event[] = rest.map((f) => (f as { event: Event }).event);
  if (seat === null) {
    const versions = events.map((e) => e.version);
    assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
    assert.equal(new Set(versions).size, versions.length, "no event twice");
    return;
  }
  const client = new StelaClient({ baseUrl: server.url });
  await assertSeatsView(client, gameId, snapshot.game.version, seat, events, "this seat's view of every event");
}

test("per-game EventSource streams and the personal stream resume across a restart in Chromium", { timeout: 600_000 }, async () => {
  const page = await openPage();
  const { games } = (await page.evaluate(`window.stela.setup(${JSON.stringify(server.url)}, "coatl", 1, "game")`)) as
    { games: string[] };
  await playAcrossRestart(page);
  const report = await caughtUp(page, games);
  await page.evaluate("window.stela.closeAll()");
  mkdirSync("../../build/screenshots", { recursive: true });
  await page.screenshot({ path: "../../build/screenshots/sdk-typescript-game-streams.png", fullPage: true });
  assert.deepEqual(report.errors, []);
  const gameId = games[0]!;
  for (const seat of [0, 1]) {
    const follower = report.followers[`seat ${seat}`]!;
    assert.ok(follower.connects >= 2, `the stream reconnected after the restart (${follower.connects})`);
    await assertExactlyOnce(follower, gameId, seat);
  }
  await assertExactlyOnce(report.followers["spectator"]!, gameId, null);
  const notices = report.followers["personal 0"]!.frames as unknown as Array<{ type: string; game_id: string }>;
  assert.ok(notices.some((n) => saysEnded(n, gameId)), "the personal stream saw the end");
  await page.close();
});

test("one multiplexed EventSource per viewer follows two games and the personal notices across a restart", { timeout: 600_000 }, async () => {
  // tickets live 1 s: after the restart EventSource's own reconnect is refused (401), and the SDK
  // must open a new connection with a fresh ticket and its positions (after=)
  server.env["STELA_TICKET_TTL_SECONDS"] = "1";
  await server.stop();
  await server.start();
  const page = await openPage();
  const { games } = (await page.evaluate(`window.stela.setup(${JSON.stringify(server.url)}, "coatl", 2, "multiplex")`)) as
    { games: string[] };
  await playAcrossRestart(page);
  const report = await caughtUp(page, games);
  await page.evaluate("window.stela.closeAll()");
  await page.screenshot({ path: "../../build/screenshots/sdk-typescript-multiplexed.png", fullPage: true });
  assert.deepEqual(report.errors, []);
  for (const [name, seat] of [["seat 0", 0], ["seat 1", 1], ["spectator", null]] as const) {
    const follower = report.followers[name]!;
    assert.ok(follower.connects >= 2, `${name} reconnected after the restart (${follower.connects})`);
    if (seat !== null) {  // a spectator has no ticket: its EventSource resumed by itself
      assert.ok(follower.opens >= 2, `${name}: a new EventSource with a fresh ticket (${follower.opens})`);
    }
    for (const gameId of games) await assertExactlyOnce(follower, gameId, seat);
    const types = new Set(follower.frames.map((f) => f.type as string));
    assert.ok(types.has("turn") && types.has("ready"), [...types].join(","));
  }
  const seat0 = report.followers["seat 0"]!.frames as unknown as Array<{ type: string; game_id: string; commands?: unknown[]; your_turn?: boolean }>;
  for (const gameId of games) {
    assert.ok(seat0.some((n) => saysEnded(n, gameId)), "the personal notices came too");
  }
  assert.ok(seat0.some((f) => f.type === "turn" && f.your_turn && Array.isArray(f.commands)), "turns carry legal commands");
  await page.close();
});
