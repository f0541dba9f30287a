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
import { Http, type HttpOptions } from "./http.js";
import { GameStream, MultiStream, PersonalStream, type MultiStreamOptions } from "./streams.js";
import type { StreamOptions } from "./stream.js";
import type { BodyOf, Command, CommandResult, EventPage, Game, Legal, Me, PlayerCreated, QueryOf, ResultOf, Ticket } from "./types.js";
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
export declare class StelaClient {
    readonly http: Http;
    constructor(options: ClientOptions);
    /** Register a new player; the answer's token is shown only this once (keep it to sign in again). */
    static register(baseUrl: string, name: string, options?: Omit<ClientOptions, "baseUrl" | "token">): Promise<{
        client: StelaClient;
        player: PlayerCreated;
    }>;
    /** Sign in with a token kept from registration (or rotation): checks it, and who it is. */
    static signIn(baseUrl: string, token: string, options?: Omit<ClientOptions, "baseUrl" | "token">): Promise<{
        client: StelaClient;
        me: Me;
    }>;
    /** The bearer token in use (undefined: anonymous, a spectator). */
    get token(): string | undefined;
    private get;
    private keyed;
    me(): Promise<Me>;
    /** Rotate the token: the old one (and its tickets and streams) stops working at once. */
    rotateToken(): Promise<string>;
    /** Revoke the token: it, its tickets and its streams stop working; this client is anonymous after. */
    revokeToken(): Promise<void>;
    kinds(): Promise<Kinds>;
    kind(kind: string): Promise<Kind>;
    listGames(query?: QueryOf<"listGames">): Promise<GameList>;
    /** Create a game (the creator takes a seat unless `join: false`). */
    createGame(body: BodyOf<"createGame">, options?: KeyedOptions): Promise<Game>;
    game(id: string, signal?: AbortSignal): Promise<Game>;
    join(id: string, body?: BodyOf<"joinGame">, options?: KeyedOptions): Promise<ResultOf<"joinGame">>;
    leave(id: string, options?: KeyedOptions): Promise<ResultOf<"leaveGame">>;
    start(id: string, options?: KeyedOptions): Promise<ResultOf<"startGame">>;
    legal(id: string, signal?: AbortSignal): Promise<Legal>;
    events(id: string, query?: QueryOf<"getEvents">): Promise<EventPage>;
    /**
     * Send a command for the caller's seat. It carries an `Idempotency-Key` (a fresh one unless
     * given) and is retried with that same key on network errors, 429, 503 and contention, so it
     * acts at most once. A `VersionConflictError` or `RuleViolationError` is thrown, never retried.
     */
    command(id: string, command: Command, options?: CommandOptions): Promise<CommandResult>;
    /** A read-only ticket for one game's stream (for EventSource, which cannot send a token). */
    gameStreamTicket(id: string): Promise<Ticket>;
    /** A read-only ticket for the personal stream. */
    personalStreamTicket(): Promise<Ticket>;
    /** A read-only ticket for the multiplexed stream (`GET /v1/stream`, any set of games). */
    streamTicket(): Promise<Ticket>;
    /** Follow several games (and with `personal: true` the caller's notices) on one connection. */
    follow(options: MultiStreamOptions): MultiStream;
    /** Follow one game on its own stream. */
    followGame(id: string, options?: StreamOptions & {
        position?: number;
    }): GameStream;
    /** Follow the caller's notices (started, your turn, ended) for all their games (`legal`: your-turn notices carry the commands). */
    followPersonal(options?: StreamOptions & {
        cursor?: number;
        legal?: boolean;
    }): PersonalStream;
}
export {};
