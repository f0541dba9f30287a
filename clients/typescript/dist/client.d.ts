/**
 * `StelaClient`: every operation of the API with typed bodies and answers (`OPERATIONS` maps each
 * operationId of openapi/openapi.json to its method; the compiler refuses a missing one), plus what
 * every front end would otherwise write itself: registration, password sign-in, the OAuth 2.0 + PKCE
 * flow of a public app (`oauth.ts`), stream tickets, resumable streams, commands with an
 * `Idempotency-Key` retried safely, back-off on 429/503, the `RateLimit` fields and opt-in pacing.
 *
 * ```ts
 * const { client } = await StelaClient.register("https://stela.example", "Ann");
 * const game = await client.createGame({ kind: "coatl", seats: 2 });
 * ```
 */
import { Http, type HttpOptions } from "./http.js";
import type { AuthorizationRequest } from "./oauth.js";
import type { RateLimit } from "./ratelimit.js";
import { GameStream, LogStream, MultiStream, PersonalStream, type MultiStreamOptions } from "./streams.js";
import type { StreamOptions } from "./stream.js";
import type { BodyOf, Command, CommandResult, EventPage, Game, Legal, Me, operations, PlayerCreated, QueryOf, ResultOf, Ticket } from "./types.js";
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
type Tournament = ResultOf<"getTournament">;
export type EntrantView = ResultOf<"registerForTournament">;
type Arena = ResultOf<"getArena">;
export type ArenaEntrantView = ResultOf<"joinArena">;
export type Session = ResultOf<"signIn", 201>;
export type OAuthTokens = ResultOf<"oauthToken">;
export type App = ResultOf<"registerApp", 201>;
export declare class StelaClient {
    readonly http: Http;
    /** an app's refresh token (after `exchangeCode` or `refresh`); each refresh spends it and keeps the new one */
    refreshToken: string | undefined;
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
    /** Sign in with a login and password: a client holding a fresh session token (every scope, 30 days). */
    static signInWithPassword(baseUrl: string, login: string, password: string, options?: Omit<ClientOptions, "baseUrl" | "token">): Promise<{
        client: StelaClient;
        session: Session;
    }>;
    /** An app's client from the code its redirect brought back (`oauth.ts`): exchanged with the PKCE verifier. */
    static fromAuthorizationCode(baseUrl: string, request: AuthorizationRequest, code: string, options?: Omit<ClientOptions, "baseUrl" | "token">): Promise<{
        client: StelaClient;
        tokens: OAuthTokens;
    }>;
    /** The bearer token in use (undefined: anonymous, a spectator). */
    get token(): string | undefined;
    /** The last answer's `RateLimit` fields (`policy`, `remaining`, `resetSeconds`, `quota`, `windowSeconds`). */
    get rateLimit(): RateLimit | undefined;
    private get;
    private text;
    /** A write the server does not deduplicate: retried only on 429 (refused before acting). */
    private post;
    private keyed;
    me(): Promise<Me>;
    player(id: string): Promise<ResultOf<"getPlayer">>;
    playerGames(id: string, query?: QueryOf<"listPlayerGames">): Promise<ResultOf<"listPlayerGames">>;
    /** Sign in with a password: this client then holds the session token. */
    signInWithPassword(login: string, password: string): Promise<Session>;
    /** Set the password (a change needs `current_password` or a fresh sign-in, and ends the other tokens
     *  unless `keep_tokens`); the answer's `login` is the handle to sign in with. */
    setPassword(body: BodyOf<"setPassword">): Promise<ResultOf<"setPassword">>;
    /** Rotate the token: the old one (and its tickets and streams) stops working at once. */
    rotateToken(): Promise<string>;
    /** Revoke the token: it, its tickets and its streams stop working; this client is anonymous after. */
    revokeToken(): Promise<void>;
    /** A personal access token with scopes (`read`, `play`, `tournaments:organise`), shown this once. */
    createToken(body: BodyOf<"createAccessToken">): Promise<ResultOf<"createAccessToken", 201>>;
    /** Every live token but the first (sessions, personal access tokens, apps'), never the tokens themselves. */
    tokens(): Promise<ResultOf<"listAccessTokens">>;
    revokeAccessToken(id: string): Promise<void>;
    /** Register an app (a public client: no secret) owned by this player. */
    registerApp(body: BodyOf<"registerApp">): Promise<App>;
    authorizedApps(): Promise<ResultOf<"listAuthorizedApps">>;
    /** Every token of the app for this player stops working. */
    revokeApp(clientId: string): Promise<void>;
    /** RFC 8414 metadata: issuer, authorization, token and revocation endpoints. */
    oauthMetadata(): Promise<Record<string, unknown>>;
    /** What a consent page shows of an authorization request (its query string, unchanged). */
    describeAuthorization(query: string): Promise<ResultOf<"describeAuthorization">>;
    /** The signed-in player's answer to an authorization request: where to send the browser. */
    decideAuthorization(query: string, allow: boolean): Promise<ResultOf<"decideAuthorization">>;
    private tokenGrant;
    /** An app's code and PKCE verifier for tokens; this client then uses the access token. */
    exchangeCode(clientId: string, code: string, redirectUri: string, verifier: string): Promise<OAuthTokens>;
    /** New tokens for the refresh token (this client's own unless given): the old one is spent (rotation). */
    refresh(clientId: string, refreshToken?: string): Promise<OAuthTokens>;
    /** RFC 7009: end the grant the token (this client's refresh token unless given) belongs to; the player's
     *  other grants to the app (other devices) keep working. An app's log-out. */
    revokeGrant(clientId: string, token?: string, tokenTypeHint?: string): Promise<void>;
    kinds(): Promise<Kinds>;
    kind(kind: string): Promise<Kind>;
    kindComponents(kind: string): Promise<ResultOf<"getKindComponents">>;
    listGames(query?: QueryOf<"listGames">): Promise<GameList>;
    /** Create a game (the creator takes a seat unless `join: false`; `bots` fill the seats after the creator). */
    createGame(body: BodyOf<"createGame">, options?: KeyedOptions): Promise<Game>;
    game(id: string, signal?: AbortSignal, query?: QueryOf<"getGame">): Promise<Game>;
    /** The game as it was at `version` (with `seat`, that seat's view, as far as the caller may see). */
    gameAt(id: string, version: number, query?: QueryOf<"getGameAtVersion">): Promise<Game>;
    boardSvg(id: string): Promise<string>;
    /** The full log as NDJSON (after the end). */
    exportGame(id: string): Promise<string>;
    join(id: string, body?: BodyOf<"joinGame">, options?: KeyedOptions): Promise<ResultOf<"joinGame">>;
    leave(id: string, options?: KeyedOptions): Promise<ResultOf<"leaveGame">>;
    start(id: string, options?: KeyedOptions): Promise<ResultOf<"startGame">>;
    legal(id: string, signal?: AbortSignal, query?: QueryOf<"getLegalCommands">): Promise<Legal>;
    events(id: string, query?: QueryOf<"getEvents">): Promise<EventPage>;
    /**
     * Send a command for the caller's seat. It carries an `Idempotency-Key` (a fresh one unless
     * given) and is retried with that same key on network errors, 429, 503 and contention (for at
     * least `minRetrySpanMs`, 20 s: a restart is waited out), so it acts at most once. A
     * `VersionConflictError` or `RuleViolationError` is thrown, never retried.
     */
    command(id: string, command: Command, options?: CommandOptions): Promise<CommandResult>;
    leaderboard(kind: string, query?: QueryOf<"getLeaderboard">): Promise<ResultOf<"getLeaderboard">>;
    stats(query?: QueryOf<"getStats">): Promise<ResultOf<"getStats">>;
    health(): Promise<ResultOf<"health">>;
    ready(): Promise<ResultOf<"ready">>;
    /** A read-only ticket for one game's stream (for EventSource, which cannot send a token). */
    gameStreamTicket(id: string): Promise<Ticket>;
    /** A read-only ticket for the personal stream. */
    personalStreamTicket(): Promise<Ticket>;
    /** A read-only ticket for the multiplexed stream (`GET /v1/stream`, any set of games). */
    streamTicket(): Promise<Ticket>;
    /** Follow several games (and with `personal: true` the caller's notices) on one connection; with no game
     *  yet (a spectator's `follow({ games: [] })`) it waits, `idle`, for `setGames`. */
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
    /** Follow a tournament (public): its state, then its events; ends after `TournamentEnded`. */
    followTournament(id: string, options?: Omit<StreamOptions, "transport">): LogStream;
    /** Follow an arena (public): its state, then its events; ends after `TournamentEnded` (every format's end). */
    followArena(id: string, options?: Omit<StreamOptions, "transport">): LogStream;
    tournaments(query?: QueryOf<"listTournaments">): Promise<ResultOf<"listTournaments">>;
    /** A tournament organised by this player. */
    createTournament(body: BodyOf<"createTournament">): Promise<Tournament>;
    tournament(id: string): Promise<Tournament>;
    tournamentEvents(id: string, query?: QueryOf<"getTournamentEvents">): Promise<ResultOf<"getTournamentEvents">>;
    /** Register the caller (or, for the organiser, `body.player_id`): the answer is that player's entry, not the
     * tournament (`tournament(id)` reads it, `followTournament` follows it from the entry's `version`). */
    registerFor(id: string, body?: BodyOf<"registerForTournament">): Promise<EntrantView>;
    /** Withdraw the caller (or, for the organiser, `body.player_id`): the answer is that player's entry. */
    withdrawFrom(id: string, body?: BodyOf<"withdrawFromTournament">): Promise<EntrantView>;
    startTournament(id: string): Promise<Tournament>;
    /** The organiser registers bots (through the tournament's own registration, so its rules apply). */
    addTournamentBots(id: string, body: BodyOf<"addTournamentBots">): Promise<Tournament>;
    forbidPairing(id: string, players: string[]): Promise<Tournament>;
    /** The organiser sets the next round's tables (players in seat order) and byes (Swiss). */
    setPairings(id: string, round: number, tables: string[][], byes?: string[]): Promise<Tournament>;
    adjudicate(id: string, gameId: string, ranks: number[]): Promise<Tournament>;
    annul(id: string, gameId: string): Promise<Tournament>;
    pausePlayer(id: string, body?: BodyOf<"pauseTournamentPlayer">): Promise<Tournament>;
    resumePlayer(id: string, body?: BodyOf<"resumeTournamentPlayer">): Promise<Tournament>;
    /** A slow tournament: the caller's weekly playing windows (minutes from Monday 00:00 UTC); [] = any time. */
    setWindows(id: string, windows: BodyOf<"setTournamentWindows">["windows"]): Promise<Tournament>;
    removePlayer(id: string, body: BodyOf<"removeTournamentPlayer">): Promise<Tournament>;
    tournamentReport(id: string): Promise<ResultOf<"getTournamentReport">>;
    tournamentReportCsv(id: string, query?: QueryOf<"getTournamentReportCsv">): Promise<string>;
    arenas(query?: QueryOf<"listArenas">): Promise<ResultOf<"listArenas">>;
    createArena(body: BodyOf<"createArena">): Promise<Arena>;
    arena(id: string): Promise<Arena>;
    arenaEvents(id: string, query?: QueryOf<"getArenaEvents">): Promise<ResultOf<"getArenaEvents">>;
    /** The arena's organiser enters bots (the arena's own rule; they play every game it pairs them into). */
    addArenaBots(id: string, body: BodyOf<"addArenaBots">): Promise<Arena>;
    /** Join the arena, or come back after a pause: the answer is the caller's part of the arena (their points,
     * streak, games, presence, the game they are in, the arena's status, players and `version`), not the arena
     * (`arena(id)` reads it with the standings, `followArena` follows it from `version`); `leaveArena`,
     * `pauseArena` and `berserk` answer the same way. */
    joinArena(id: string, body?: BodyOf<"joinArena">): Promise<ArenaEntrantView>;
    leaveArena(id: string): Promise<ArenaEntrantView>;
    pauseArena(id: string): Promise<ArenaEntrantView>;
    berserk(id: string, gameId: string): Promise<ArenaEntrantView>;
    /** The log's origin, its signer's public key and its size. */
    logInfo(): Promise<ResultOf<"getLogInfo">>;
    /** The newest signed checkpoint (a C2SP signed note) with its witnesses' cosignatures. */
    checkpoint(): Promise<string>;
    /** The signed checkpoint published for a tree of `size` leaves. */
    checkpointOfSize(size: number): Promise<string>;
    /** Sign a checkpoint now (the admin token). */
    issueCheckpoint(): Promise<string>;
    /** Submit a witness's cosignature of a checkpoint; the answer is the note with it appended. */
    addCosignature(body: BodyOf<"addCosignature">): Promise<string>;
    logLeaves(query?: {
        start?: number;
        limit?: number;
    }): Promise<ResultOf<"listLogLeaves">>;
    /** Proofs that a game's or competition's leaves are in the tree of `size` leaves (the newest if omitted). */
    inclusionProof(streamId: string, size?: number): Promise<ResultOf<"getInclusionProof">>;
    /** The proof that the tree of `second` leaves extends the tree of `first` leaves. */
    consistencyProof(first: number, second: number): Promise<ResultOf<"getConsistencyProof">>;
    /** A bot worker's leases (the admin token only). */
    leaseBots(body: BodyOf<"leaseBots">): Promise<ResultOf<"leaseBots">>;
    botDone(id: string): Promise<void>;
}
/** A method of `StelaClient`, or one of its static constructors. */
export type MethodName = keyof StelaClient | "StelaClient.register" | "StelaClient.signIn" | "StelaClient.signInWithPassword" | "StelaClient.fromAuthorizationCode";
/**
 * Every operationId of openapi/openapi.json and the methods that perform it. Typed over the generated
 * `operations`, so an operation added to the document without a method here does not compile.
 */
export declare const OPERATIONS: {
    readonly [Op in keyof operations]: readonly MethodName[];
};
export {};
