/**
 * `StelaClient`: the API's operations with typed bodies and answers, plus what every front end
 * would otherwise write itself: registration and sign-in with a token, stream tickets, resumable
 * streams, commands with an `Idempotency-Key` retried safely, and back-off on 429/503.
 *
 * ```ts
 * const { client } = await StelaClient.register("https://stela.example", "Ann");
 * const game = await client.createGame({ kind: "coatl", seats: 2 });
 * ```
 */
import { Http, newIdempotencyKey, type HttpOptions } from "./http.js";
import { GameStream, MultiStream, PersonalStream, type MultiStreamOptions } from "./streams.js";
import type { StreamOptions } from "./stream.js";
import type { BodyOf, Command, CommandResult, EventPage, Game, Legal, Me, PlayerCreated, QueryOf, ResultOf,
              Ticket } from "./types.js";

export interface ClientOptions extends Omit<HttpOptions, "baseUrl"> {
  /** where the API is, e.g. `https://stela.example` (without `/v1`) */
  baseUrl: string;
}

export interface CommandOptions {
  /** the version decided on: the server answers 409 `version_conflict` if the game has moved on */
  expectedVersion?: number | null | undefined;
  /** also answer with the caller's new view and/or legal commands */
  include?: Array<"view" | "legal"> | undefined;
  /** validate only: nothing is appended and nothing revealed */
  dryRun?: boolean | undefined;
  /** defaults to a fresh key per call: every retry of this call sends the same one */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface KeyedOptions {
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

type Kinds = ResultOf<"listKinds">;
type Kind = ResultOf<"getKind">;
type GameList = ResultOf<"listGames">;

const game = (id: string): string => `/v1/games/${encodeURIComponent(id)}`;

export class StelaClient {
  readonly http: Http;

  constructor(options: ClientOptions) {
    this.http = new Http(options);
  }

  /** Register a new player; the answer's token is shown only this once (keep it to sign in again). */
  static async register(baseUrl: string, name: string, options: Omit<ClientOptions, "baseUrl" | "token"> = {}):
      Promise<{ client: StelaClient; player: PlayerCreated }> {
    const client = new StelaClient({ ...options, baseUrl });
    const body: BodyOf<"createPlayer"> = { name };
    const { data } = await client.http.request<PlayerCreated>("POST", "/v1/players", { body, retry: "unsafe" });
    client.http.token = data.token;
    return { client, player: data };
  }

  /** Sign in with a token kept from registration (or rotation): checks it, and who it is. */
  static async signIn(baseUrl: string, token: string, options: Omit<ClientOptions, "baseUrl" | "token"> = {}):
      Promise<{ client: StelaClient; me: Me }> {
    const client = new StelaClient({ ...options, baseUrl, token });
    return { client, me: await client.me() };
  }

  /** The bearer token in use (undefined: anonymous, a spectator). */
  get token(): string | undefined {
    return this.http.token;
  }

  private get<T>(path: string, query?: Record<string, string | number | boolean | null | undefined>,
                 signal?: AbortSignal): Promise<T> {
    return this.http.request<T>("GET", path, { query, retry: "safe", signal }).then((a) => a.data);
  }

  private keyed<T>(path: string, body: unknown, options: KeyedOptions = {},
                   query?: Record<string, string | number | boolean | undefined>): Promise<T> {
    const headers = { "Idempotency-Key": options.idempotencyKey ?? newIdempotencyKey() };
    return this.http.request<T>("POST", path, { body, query, headers, retry: "keyed", signal: options.signal })
      .then((a) => a.data);
  }

  me(): Promise<Me> {
    return this.get("/v1/players/me");
  }

  /** Rotate the token: the old one (and its tickets and streams) stops working at once. */
  async rotateToken(): Promise<string> {
    const { data } = await this.http.request<{ token: string }>("POST", "/v1/players/me/token", { retry: "unsafe" });
    this.http.token = data.token;
    return data.token;
  }

  /** Revoke the token: it, its tickets and its streams stop working; this client is anonymous after. */
  async revokeToken(): Promise<void> {
    await this.http.request<undefined>("DELETE", "/v1/players/me/token", { retry: "safe" });
    this.http.token = undefined;
  }

  kinds(): Promise<Kinds> {
    return this.get("/v1/kinds");
  }

  kind(kind: string): Promise<Kind> {
    return this.get(`/v1/kinds/${encodeURIComponent(kind)}`);
  }

  listGames(query: QueryOf<"listGames"> = {}): Promise<GameList> {
    return this.get("/v1/games", query as Record<string, string | number | boolean | null | undefined>);
  }

  /** Create a game (the creator takes a seat unless `join: false`). */
  createGame(body: BodyOf<"createGame">, options?: KeyedOptions): Promise<Game> {
    return this.keyed("/v1/games", body, options);
  }

  game(id: string, signal?: AbortSignal): Promise<Game> {
    return this.get(game(id), undefined, signal);
  }

  join(id: string, body: BodyOf<"joinGame"> = {}, options?: KeyedOptions): Promise<ResultOf<"joinGame">> {
    return this.keyed(`${game(id)}/join`, body, options);
  }

  leave(id: string, options?: KeyedOptions): Promise<ResultOf<"leaveGame">> {
    return this.keyed(`${game(id)}/leave`, undefined, options);
  }

  start(id: string, options?: KeyedOptions): Promise<ResultOf<"startGame">> {
    return this.keyed(`${game(id)}/start`, undefined, options);
  }

  legal(id: string, signal?: AbortSignal): Promise<Legal> {
    return this.get(`${game(id)}/legal`, undefined, signal);
  }

  events(id: string, query: QueryOf<"getEvents"> = {}): Promise<EventPage> {
    return this.get(`${game(id)}/events`, query);
  }

  /**
   * Send a command for the caller's seat. It carries an `Idempotency-Key` (a fresh one unless
   * given) and is retried with that same key on network errors, 429, 503 and contention, so it
   * acts at most once. A `VersionConflictError` or `RuleViolationError` is thrown, never retried.
   */
  command(id: string, command: Command, options: CommandOptions = {}): Promise<CommandResult> {
    const body: BodyOf<"sendCommand"> = { command, expected_version: options.expectedVersion ?? null };
    const query = { include: options.include?.join(","), dry_run: options.dryRun ? true : undefined };
    return this.keyed(`${game(id)}/commands`, body, options, query);
  }

  /** A read-only ticket for one game's stream (for EventSource, which cannot send a token). */
  async gameStreamTicket(id: string): Promise<Ticket> {
    return (await this.http.request<Ticket>("POST", `${game(id)}/stream-tickets`, { retry: "safe" })).data;
  }

  /** A read-only ticket for the personal stream. */
  async personalStreamTicket(): Promise<Ticket> {
    return (await this.http.request<Ticket>("POST", "/v1/players/me/stream-tickets", { retry: "safe" })).data;
  }

  /** A read-only ticket for the multiplexed stream (`GET /v1/stream`, any set of games). */
  async streamTicket(): Promise<Ticket> {
    return (await this.http.request<Ticket>("POST", "/v1/stream-tickets", { retry: "safe" })).data;
  }

  /** Follow several games (and with `personal: true` the caller's notices) on one connection. */
  follow(options: MultiStreamOptions): MultiStream {
    return new MultiStream(this.http, options);
  }

  /** Follow one game on its own stream. */
  followGame(id: string, options: StreamOptions & { position?: number } = {}): GameStream {
    return new GameStream(this.http, id, options);
  }

  /** Follow the caller's notices (started, your turn, ended) for all their games (`legal`: your-turn notices carry the commands). */
  followPersonal(options: StreamOptions & { cursor?: number; legal?: boolean } = {}): PersonalStream {
    return new PersonalStream(this.http, options);
  }
}
