import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
// A real `stela serve` for the live tests, restartable on the same port, and a player that
// drives a game to its end through the SDK. Needs STELA_BIN (the `stela` command) and
// DATABASE_URL (an empty PostgreSQL database); tests/sdk_typescript/ sets both.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { after } from "node:test";
import { StelaClient, VersionConflictError, type Event, type Game, type Kind } from "../../src/index.js";

/** Streams a test opened: closed after it whatever happened, or they would keep the test process alive. */
const opened: Array<{ close(): void }> = [];

export function track<S extends { close(): void }>(stream: S): S {
  opened.push(stream);
  return stream;
}

export function closeTracked(): void {
  for (const stream of opened.splice(0)) stream.close();
}

/**
 * A personal notice saying the game is over: `game.ended` when it ends while connected, or the
 * `game.state` (status finished) a resumed connection re-announces when it ended meanwhile.
 */
export function saysEnded(notice: { type: string; game_id?: string; status?: string }, gameId: string): boolean {
  return notice.game_id === gameId && (notice.type === "game.ended" || (notice.type === "game.state" && notice.status === "finished"));
}

export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set for the live tests (tests/sdk_typescript/ sets it)`);
  return value;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function until<T>(check: () => T | Promise<T>, what: string, deadlineMs = 120_000): Promise<NonNullable<T>> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The server's budget of requests per token (and per address) in each window: far more than a script spends,
 * which plays far faster than any person clicks, but on, so every answer carries its `RateLimit` fields
 * (the README's tour prints them). test/live/ratelimit.test.ts restarts the server with a small one.
 */
export const RATE_LIMIT = 100_000;
export const RATE_LIMIT_WINDOW = 60; // seconds: the server's default

export class Server {
  url = "";
  /** more environment for the next starts (say, a short STELA_TICKET_TTL_SECONDS) */
  env: Record<string, string> = {};
  private proc: ChildProcess | undefined;
  private port = 0;
  private metricsPort = 0;

  private starting: Promise<void> | undefined;
  private launching = false;

  /**
   * Start the server unless it runs or is starting (a restart is `stop()`, then `start()`): whoever calls it,
   * even while another caller's start is under way (the files' `before` hooks), one process, and each caller
   * resolves once it answers.
   */
  start(): Promise<void> {
    const alive = this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
    if (this.starting && (this.launching || alive)) return this.starting;
    this.launching = true;
    this.starting = this.launch().finally(() => { this.launching = false; });
    return this.starting;
  }

  private async launch(): Promise<void> {
    if (!this.port) {
      this.port = await freePort();
      this.metricsPort = await freePort();
      this.url = `http://127.0.0.1:${this.port}`;
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env, DATABASE_URL: required("DATABASE_URL"), STELA_PORT: String(this.port),
      STELA_METRICS_PORT: String(this.metricsPort), STELA_LOG_LEVEL: "warning", STELA_HEARTBEAT_SECONDS: "1",
      STELA_RATE_LIMIT: String(RATE_LIMIT), STELA_RATE_LIMIT_WINDOW_SECONDS: String(RATE_LIMIT_WINDOW),
      ...this.env,
    };
    delete env["REDIS_URL"];
    const proc = spawn(required("STELA_BIN"), ["serve"], { env, stdio: ["ignore", "ignore", "inherit"] });
    this.proc = proc;
    await until(async () => {
      if (proc.exitCode !== null) throw new Error(`stela serve exited with ${proc.exitCode}`);
      return fetch(`${this.url}/healthz`).then((r) => r.ok, () => false);
    }, "stela serve to start", 60_000);
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill(signal);
    await exited;
  }
}

/**
 * The one server of the live run: test/live/suite.ts runs every live file in one process, so they share it
 * (and its database); run alone, a file has it to itself. A file starts it (a no-op if it runs) and may
 * restart it or give it more environment for its next start; it is stopped when the run ends.
 */
export const server = new Server();
after(() => server.stop());

/** Two registered players at a started game of `kind`. */
export async function twoPlayerGame(api: string, kind: Kind) {
  const ann = await StelaClient.register(api, "Ann");
  const bob = await StelaClient.register(api, "Bob");
  const game = await ann.client.createGame({ kind, seats: 2 });
  await bob.client.join(game.id);
  await ann.client.start(game.id);
  return { gameId: game.id, seats: [ann.client, bob.client], players: [ann.player.id, bob.player.id] };
}

/** A small deterministic generator, so a run can be repeated. */
export function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}

/** Play up to `limit` commands from `legal`; returns the game's status then. */
export async function play(seats: StelaClient[], gameId: string, limit: number, random: (n: number) => number):
    Promise<Game["status"]> {
  for (let n = 0; n < limit; n++) {
    const game = await seats[0]!.game(gameId);
    if (game.status !== "active") return game.status;
    const seat = game.to_act[random(game.to_act.length)]!;
    const legal = await seats[seat]!.legal(gameId);
    if (!legal.commands.length) continue; // a seat that already acted in a simultaneous phase
    const command = legal.commands[random(legal.commands.length)]!;
    try {
      await seats[seat]!.command(gameId, command, { expectedVersion: legal.version });
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
  return "active";
}

/**
 * Every event after `after` as `seat` received it (the log is public once the game is over), or
 * with `seat` null the whole log as it is public now.
 */
export async function eventsAsSeat(client: StelaClient, gameId: string, after: number, seat: number | null):
    Promise<Event[]> {
  const events: Event[] = [];
  for (;;) {
    const page = await client.events(gameId, seat === null ? { after } : { after, as_seat: seat });
    if (after >= page.version) return events;
    events.push(...page.events);
    after = Math.min(after + 1000, page.version);
  }
}


/** Exactly `seat`'s events of the game after `after`, once and in order; except that a connection resumed
 * after the game ended gets the rest as the public log (everything is public after the end): from the first
 * event that differs from the seat's view on, each must be the public one. */
export async function assertSeatsView(client: StelaClient, gameId: string, after: number, seat: number,
                                      events: (Event | false | undefined)[], what: string): Promise<void> {
  const expected = await eventsAsSeat(client, gameId, after, seat);
  const full = await eventsAsSeat(client, gameId, after, null);
  assert.deepEqual(events.map((e) => e && e.version), expected.map((e) => e.version), `${what}: every event once, in order`);
  const first = events.findIndex((e, i) => !isDeepStrictEqual(e, expected[i]));
  if (first < 0) return;
  for (let i = first; i < events.length; i++) {
    assert.ok(isDeepStrictEqual(events[i], full[i]) || isDeepStrictEqual(events[i], expected[i]),
              `${what}: neither the seat's view nor, after a resume past the end, the public log: ${
                JSON.stringify([events[i], expected[i], full[i]]).slice(0, 1500)}`);
  }
}
