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
import { Http, newIdempotencyKey } from "./http.js";
import { GameStream, MultiStream, PersonalStream } from "./streams.js";
const game = (id) => `/v1/games/${encodeURIComponent(id)}`;
export class StelaClient {
    http;
    constructor(options) {
        this.http = new Http(options);
    }
    /** Register a new player; the answer's token is shown only this once (keep it to sign in again). */
    static async register(baseUrl, name, options = {}) {
        const client = new StelaClient({ ...options, baseUrl });
        const body = { name };
        const { data } = await client.http.request("POST", "/v1/players", { body, retry: "unsafe" });
        client.http.token = data.token;
        return { client, player: data };
    }
    /** Sign in with a token kept from registration (or rotation): checks it, and who it is. */
    static async signIn(baseUrl, token, options = {}) {
        const client = new StelaClient({ ...options, baseUrl, token });
        return { client, me: await client.me() };
    }
    /** The bearer token in use (undefined: anonymous, a spectator). */
    get token() {
        return this.http.token;
    }
    get(path, query, signal) {
        return this.http.request("GET", path, { query, retry: "safe", signal }).then((a) => a.data);
    }
    keyed(path, body, options = {}, query) {
        const headers = { "Idempotency-Key": options.idempotencyKey ?? newIdempotencyKey() };
        return this.http.request("POST", path, { body, query, headers, retry: "keyed", signal: options.signal })
            .then((a) => a.data);
    }
    me() {
        return this.get("/v1/players/me");
    }
    /** Rotate the token: the old one (and its tickets and streams) stops working at once. */
    async rotateToken() {
        const { data } = await this.http.request("POST", "/v1/players/me/token", { retry: "unsafe" });
        this.http.token = data.token;
        return data.token;
    }
    /** Revoke the token: it, its tickets and its streams stop working; this client is anonymous after. */
    async revokeToken() {
        await this.http.request("DELETE", "/v1/players/me/token", { retry: "safe" });
        this.http.token = undefined;
    }
    kinds() {
        return this.get("/v1/kinds");
    }
    kind(kind) {
        return this.get(`/v1/kinds/${encodeURIComponent(kind)}`);
    }
    listGames(query = {}) {
        return this.get("/v1/games", query);
    }
    /** Create a game (the creator takes a seat unless `join: false`). */
    createGame(body, options) {
        return this.keyed("/v1/games", body, options);
    }
    game(id, signal) {
        return this.get(game(id), undefined, signal);
    }
    join(id, body = {}, options) {
        return this.keyed(`${game(id)}/join`, body, options);
    }
    leave(id, options) {
        return this.keyed(`${game(id)}/leave`, undefined, options);
    }
    start(id, options) {
        return this.keyed(`${game(id)}/start`, undefined, options);
    }
    legal(id, signal) {
        return this.get(`${game(id)}/legal`, undefined, signal);
    }
    events(id, query = {}) {
        return this.get(`${game(id)}/events`, query);
    }
    /**
     * Send a command for the caller's seat. It carries an `Idempotency-Key` (a fresh one unless
     * given) and is retried with that same key on network errors, 429, 503 and contention, so it
     * acts at most once. A `VersionConflictError` or `RuleViolationError` is thrown, never retried.
     */
    command(id, command, options = {}) {
        const body = { command, expected_version: options.expectedVersion ?? null };
        const query = { include: options.include?.join(","), dry_run: options.dryRun ? true : undefined };
        return this.keyed(`${game(id)}/commands`, body, options, query);
    }
    /** A read-only ticket for one game's stream (for EventSource, which cannot send a token). */
    async gameStreamTicket(id) {
        return (await this.http.request("POST", `${game(id)}/stream-tickets`, { retry: "safe" })).data;
    }
    /** A read-only ticket for the personal stream. */
    async personalStreamTicket() {
        return (await this.http.request("POST", "/v1/players/me/stream-tickets", { retry: "safe" })).data;
    }
    /** A read-only ticket for the multiplexed stream (`GET /v1/stream`, any set of games). */
    async streamTicket() {
        return (await this.http.request("POST", "/v1/stream-tickets", { retry: "safe" })).data;
    }
    /** Follow several games (and with `personal: true` the caller's notices) on one connection. */
    follow(options) {
        return new MultiStream(this.http, options);
    }
    /** Follow one game on its own stream. */
    followGame(id, options = {}) {
        return new GameStream(this.http, id, options);
    }
    /** Follow the caller's notices (started, your turn, ended) for all their games (`legal`: your-turn notices carry the commands). */
    followPersonal(options = {}) {
        return new PersonalStream(this.http, options);
    }
}
