/**
 * The three stream kinds on the resumable driver:
 *
 * - `MultiStream`, `GET /v1/stream`: several games and the personal notices on one connection
 *   (docs/streams.md). Positions are kept per game from the frames themselves; a new connection
 *   sends them as `after=` and `personal_after=` (EventSource's own reconnects send `Last-Event-ID`).
 * - `GameStream`, `GET /v1/games/{id}/stream?frames=message`: one game, delivered in the same
 *   frame shapes (`snapshot`, `event`). A fetch reconnect sends `Last-Event-ID`; a new EventSource
 *   cannot, so the snapshot it starts with is replaced by the events missed, read from `/events`.
 * - `PersonalStream`, `GET /v1/players/me/stream`: the caller's notices, resumed by cursor.
 *
 * Each drops an event it already delivered (versions can skip: an event a viewer may not see is
 * not sent at all), so a listener sees every event of a game exactly once, in version order,
 * across any reconnect.
 */
import { UnauthorizedError } from "./errors.js";
import type { Http } from "./http.js";
import type { SseMessage, SseRequest } from "./sse.js";
import { ResumableStream, type StreamOptions } from "./stream.js";
import type { Event, EventPage, Frame, Game, GameFrame, PersonalNotice, Positions, StreamFrame,
              Ticket } from "./types.js";

export interface MultiStreamOptions extends StreamOptions {
  games?: string[];
  /** also the caller's personal notices (needs a token) */
  personal?: boolean;
  /** `turn` frames (and `your_turn` notices) carry the seat's legal commands */
  legal?: boolean;
  /** resume positions to start from (a game without one starts with its snapshot) */
  positions?: Positions;
  /** resume cursor of the personal notices */
  personalCursor?: number;
}

/** The personal cursor in a multiplexed `id` (`13.4._.p1764215000123`), if any. */
function personalCursorIn(id: string): number | undefined {
  const element = id.split(".").find((part) => part.startsWith("p"));
  return element && /^p\d+$/.test(element) ? Number(element.slice(1)) : undefined;
}

/** True (and the position advanced) for an event newer than the game's position: exactly once, in order. */
function admit(positions: Positions, gameId: string, event: Event): boolean {
  const held = positions[gameId];
  if (held !== undefined && event.version <= held) return false;
  positions[gameId] = event.version;
  return true;
}

const PAGE = 1000;

const REVOKED = new UnauthorizedError({
  type: "about:blank", title: "Unauthorized", status: 401, code: "unauthorized",
  detail: "the token this stream was opened with was revoked or rotated",
});

export class MultiStream extends ResumableStream<Frame> {
  private games: string[];
  private readonly personal: boolean;
  private readonly legal: boolean;
  /** per game, the version of the last event or snapshot delivered */
  readonly positions: Positions;
  personalCursor: number | undefined;

  constructor(http: Http, options: MultiStreamOptions) {
    super(http, options);
    this.games = [...(options.games ?? [])];
    this.personal = options.personal ?? false;
    this.legal = options.legal ?? false;
    this.positions = { ...options.positions };
    this.personalCursor = options.personalCursor;
    this.start();
  }

  /** The games followed now. */
  get following(): readonly string[] {
    return this.games;
  }

  /**
   * Follow another set of games: reconnects, resuming the games kept, a snapshot for new ones. The
   * server refuses a connection that follows nothing (400), so with no game (and no personal notices)
   * the stream waits, `idle`, until a game is set.
   */
  setGames(games: string[]): void {
    this.games = [...games];
    this.reconnect();
  }

  protected override hasSomethingToFollow(): boolean {
    return this.games.length > 0 || this.personal;
  }

  protected async request(): Promise<SseRequest> {
    const held = this.games.filter((g) => this.positions[g] !== undefined);
    const query = {
      games: this.games.join(","),
      personal: this.personal ? "true" : undefined,
      legal: this.legal ? "true" : undefined,
      after: held.length ? held.map((g) => `${g}:${this.positions[g]}`).join(",") : undefined,
      personal_after: this.personal ? this.personalCursor : undefined,
      ticket: undefined as string | undefined,
    };
    if (this.native && this.http.token) {
      query.ticket = (await this.http.request<Ticket>("POST", "/v1/stream-tickets", { retry: "safe" })).data.ticket;
    }
    return { url: this.http.url("/v1/stream", query), headers: this.native ? {} : this.http.headers() };
  }

  protected accept(message: SseMessage): Frame[] {
    const frame = JSON.parse(message.data) as StreamFrame;
    const cursor = personalCursorIn(message.id);
    if (cursor !== undefined) this.personalCursor = cursor;
    if (frame.type === "end") {
      if (frame.reason === "revoked") this.fail(REVOKED);
      return [];
    }
    if (frame.type === "snapshot") {
      this.positions[frame.game_id] = frame.game.version;
    } else if (frame.type === "event") {
      if (!admit(this.positions, frame.game_id, frame.event)) return [];
    } else if (frame.type === "ready" && frame.personal !== null) {
      this.personalCursor = frame.personal;
    }
    return [frame];
  }
}

export class GameStream extends ResumableStream<GameFrame> {
  readonly gameId: string;
  private readonly positions: Positions = {};
  /** frames that arrived while the events missed were being read */
  private held: GameFrame[] | undefined;

  constructor(http: Http, gameId: string, options: StreamOptions & { position?: number } = {}) {
    super(http, options);
    this.gameId = gameId;
    if (options.position !== undefined) this.positions[gameId] = options.position;
    this.start();
  }

  /** The version of the last event or snapshot delivered. */
  get position(): number | undefined {
    return this.positions[this.gameId];
  }

  protected async request(): Promise<SseRequest> {
    const path = `/v1/games/${encodeURIComponent(this.gameId)}/stream`;
    if (this.native) {
      const ticket = this.http.token
        ? (await this.http.request<Ticket>("POST", `${path}-tickets`, { retry: "safe" })).data.ticket : undefined;
      return { url: this.http.url(path, { frames: "message", ticket }), headers: {} };
    }
    const headers = this.http.headers();
    if (this.position !== undefined) headers["Last-Event-ID"] = String(this.position);
    return { url: this.http.url(path, { frames: "message" }), headers };
  }

  protected accept(message: SseMessage): GameFrame[] {
    const data = JSON.parse(message.data) as { type: "snapshot"; game: Game } | Event;
    const frame: GameFrame = data.type === "snapshot"
      ? { type: "snapshot", game_id: this.gameId, game: data.game }
      : { type: "event", game_id: this.gameId, event: data };
    if (this.held) {
      this.held.push(frame);
      return [];
    }
    return this.admitFrame(frame);
  }

  private admitFrame(frame: GameFrame): GameFrame[] {
    if (frame.type === "event") {
      return admit(this.positions, this.gameId, frame.event) ? [frame] : [];
    }
    const held = this.position;
    if (held === undefined) {
      this.positions[this.gameId] = frame.game.version;
      return [frame];
    }
    if (frame.game.version > held) this.fillGap(held, frame.game.version);
    return []; // the listener already has the game: it gets the events missed instead
  }

  /** Deliver the events in (from, to] from `/events`, then what arrived meanwhile. */
  private fillGap(from: number, to: number): void {
    this.held = [];
    const path = `/v1/games/${encodeURIComponent(this.gameId)}/events`;
    const read = async (): Promise<Event[]> => {
      const events: Event[] = [];
      // a page covers the versions (after, after + limit]; hidden events leave holes in it
      for (let after = from; after < to; after = Math.min(after + PAGE, to)) {
        const query = { after, limit: PAGE };
        const page = (await this.http.request<EventPage>("GET", path, { query, retry: "safe" })).data;
        events.push(...page.events.filter((e) => e.version <= to));
      }
      return events;
    };
    read().then((events) => {
      const missed: GameFrame[] = events.map((event) => ({ type: "event", game_id: this.gameId, event }));
      const queued = [...missed, ...(this.held ?? [])];
      this.held = undefined;
      this.deliver(queued.flatMap((frame) => this.admitFrame(frame)));
    }, (error: unknown) => {
      this.held = undefined;
      this.fail(error);
    });
  }
}

export class PersonalStream extends ResumableStream<PersonalNotice> {
  cursor: number | undefined;
  private readonly legal: boolean;

  constructor(http: Http, options: StreamOptions & { cursor?: number; legal?: boolean } = {}) {
    super(http, options);
    this.cursor = options.cursor;
    this.legal = options.legal ?? false;
    this.start();
  }

  protected async request(): Promise<SseRequest> {
    const path = "/v1/players/me/stream";
    const legal = this.legal ? "true" : undefined;
    if (this.native) {
      const ticket = (await this.http.request<Ticket>("POST", "/v1/players/me/stream-tickets", { retry: "safe" })).data;
      return { url: this.http.url(path, { ticket: ticket.ticket, legal }), headers: {} };
    }
    const headers = this.http.headers();
    if (this.cursor !== undefined) headers["Last-Event-ID"] = String(this.cursor);
    return { url: this.http.url(path, { legal }), headers };
  }

  protected accept(message: SseMessage): PersonalNotice[] {
    if (/^\d+$/.test(message.id)) this.cursor = Number(message.id);
    return [JSON.parse(message.data) as PersonalNotice];
  }
}

/** An event of a tournament or an arena (its `type`: `tournament.*`, and an arena's own `arena.*`). */
export interface LogEvent {
  version: number;
  type: string;
  data: Record<string, unknown>;
  at: string;
}

/** A frame of a tournament's or an arena's stream: its state on connect, then its events. */
/** A competition stream's frames: its state on connect, each event, and an arena's view after each run of
 *  events (`standings`: the live standings, cut to the first 100; no event, it moves no position). */
export type LogFrame = { type: "snapshot"; state: Record<string, unknown> } | { type: "event"; event: LogEvent }
  | { type: "standings"; state: Record<string, unknown> };

/**
 * A tournament's or an arena's public stream (`GET /v1/{tournaments|arenas}/{id}/stream`): the state on
 * connect, then each event once, in order; it closes itself when the server ends the connection after
 * the last event (`tournament.TournamentEnded`, in every format, and what was appended with it).
 */
export class LogStream extends ResumableStream<LogFrame> {
  private version: number | undefined;
  private ended = false;

  constructor(http: Http, private readonly path: string, private readonly last: string,
              options: StreamOptions = {}) {
    super(http, options);
    this.start();
  }

  protected async request(): Promise<SseRequest> {
    const headers = this.native ? {} : { Accept: "text/event-stream" } as Record<string, string>;
    if (!this.native && this.version !== undefined) headers["Last-Event-ID"] = String(this.version);
    return { url: this.http.url(this.path), headers };
  }

  protected accept(message: SseMessage): LogFrame[] {
    const data = JSON.parse(message.data) as Record<string, unknown>;
    if (message.event === "snapshot") return [{ type: "snapshot", state: data }];
    if (message.event === "standings") return [{ type: "standings", state: data }];
    const event = data as unknown as LogEvent;
    if (this.version !== undefined && event.version <= this.version) return [];
    this.version = event.version;
    if (event.type === this.last) this.ended = true;  // what follows it (the seed revealed) still comes
    return [{ type: "event", event }];
  }

  protected override over(): boolean {
    return this.ended;
  }
}
