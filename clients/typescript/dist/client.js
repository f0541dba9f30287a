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
import { Http, newIdempotencyKey } from "./http.js";
import { GameStream, LogStream, MultiStream, PersonalStream } from "./streams.js";
const seg = encodeURIComponent;
const game = (id) => `/v1/games/${seg(id)}`;
const tournament = (id) => `/v1/tournaments/${seg(id)}`;
const arena = (id) => `/v1/arenas/${seg(id)}`;
export class StelaClient {
    http;
    /** an app's refresh token (after `exchangeCode` or `refresh`); each refresh spends it and keeps the new one */
    refreshToken;
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
    /** Sign in with a login and password: a client holding a fresh session token (every scope, 30 days). */
    static async signInWithPassword(baseUrl, login, password, options = {}) {
        const client = new StelaClient({ ...options, baseUrl });
        return { client, session: await client.signInWithPassword(login, password) };
    }
    /** An app's client from the code its redirect brought back (`oauth.ts`): exchanged with the PKCE verifier. */
    static async fromAuthorizationCode(baseUrl, request, code, options = {}) {
        const client = new StelaClient({ ...options, baseUrl });
        return { client, tokens: await client.exchangeCode(request.clientId, code, request.redirectUri, request.verifier) };
    }
    /** The bearer token in use (undefined: anonymous, a spectator). */
    get token() {
        return this.http.token;
    }
    /** The last answer's `RateLimit` fields (`policy`, `remaining`, `resetSeconds`, `quota`, `windowSeconds`). */
    get rateLimit() {
        return this.http.rateLimit;
    }
    get(path, query, signal) {
        return this.http.request("GET", path, { query, retry: "safe", signal }).then((a) => a.data);
    }
    text(path, query) {
        return this.http.request("GET", path, { query, retry: "safe", text: true }).then((a) => a.data);
    }
    /** A write the server does not deduplicate: retried only on 429 (refused before acting). */
    post(path, body, method = "POST") {
        return this.http.request(method, path, { body, retry: "unsafe" }).then((a) => a.data);
    }
    keyed(path, body, options = {}, query) {
        const headers = { "Idempotency-Key": options.idempotencyKey ?? newIdempotencyKey() };
        return this.http.request("POST", path, { body, query, headers, retry: "keyed", signal: options.signal })
            .then((a) => a.data);
    }
    // ------------------------------------------------------------------------------------------ players, accounts
    me() {
        return this.get("/v1/players/me");
    }
    player(id) {
        return this.get(`/v1/players/${seg(id)}`);
    }
    playerGames(id, query = {}) {
        return this.get(`/v1/players/${seg(id)}/games`, query);
    }
    /** Sign in with a password: this client then holds the session token. */
    async signInWithPassword(login, password) {
        const body = { login, password };
        const session = await this.post("/v1/sessions", body);
        this.http.token = session.token;
        return session;
    }
    /** Set the password (a change needs `current_password` or a fresh sign-in, and ends the other tokens
     *  unless `keep_tokens`); the answer's `login` is the handle to sign in with. */
    setPassword(body) {
        return this.post("/v1/players/me/password", body);
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
    /** A personal access token with scopes (`read`, `play`, `tournaments:organise`), shown this once. */
    createToken(body) {
        return this.post("/v1/players/me/tokens", body);
    }
    /** Every live token but the first (sessions, personal access tokens, apps'), never the tokens themselves. */
    tokens() {
        return this.get("/v1/players/me/tokens");
    }
    revokeAccessToken(id) {
        return this.post(`/v1/players/me/tokens/${seg(id)}`, undefined, "DELETE");
    }
    // ------------------------------------------------------------------------------------------ OAuth apps
    /** Register an app (a public client: no secret) owned by this player. */
    registerApp(body) {
        return this.post("/v1/oauth/apps", body);
    }
    authorizedApps() {
        return this.get("/v1/players/me/apps");
    }
    /** Every token of the app for this player stops working. */
    revokeApp(clientId) {
        return this.post(`/v1/players/me/apps/${seg(clientId)}`, undefined, "DELETE");
    }
    /** RFC 8414 metadata: issuer, authorization, token and revocation endpoints. */
    oauthMetadata() {
        return this.get("/.well-known/oauth-authorization-server");
    }
    /** What a consent page shows of an authorization request (its query string, unchanged). */
    describeAuthorization(query) {
        return this.get(`/v1/oauth/authorize?${query.replace(/^\?/, "")}`);
    }
    /** The signed-in player's answer to an authorization request: where to send the browser. */
    decideAuthorization(query, allow) {
        return this.post("/v1/oauth/authorize", { request: query.replace(/^\?/, ""), allow });
    }
    async tokenGrant(form) {
        const { data } = await this.http.request("POST", "/oauth/token", { form, retry: "unsafe" });
        this.http.token = data.access_token;
        this.refreshToken = data.refresh_token;
        return data;
    }
    /** An app's code and PKCE verifier for tokens; this client then uses the access token. */
    exchangeCode(clientId, code, redirectUri, verifier) {
        return this.tokenGrant({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: clientId,
            code_verifier: verifier });
    }
    /** New tokens for the refresh token (this client's own unless given): the old one is spent (rotation). */
    refresh(clientId, refreshToken) {
        return this.tokenGrant({ grant_type: "refresh_token", refresh_token: refreshToken ?? this.refreshToken,
            client_id: clientId });
    }
    /** RFC 7009: end the grant the token (this client's refresh token unless given) belongs to; the player's
     *  other grants to the app (other devices) keep working. An app's log-out. */
    async revokeGrant(clientId, token, tokenTypeHint) {
        const chosen = token ?? this.refreshToken ?? this.http.token;
        const hint = tokenTypeHint ?? (chosen === this.refreshToken ? "refresh_token" : "access_token");
        await this.http.request("POST", "/oauth/revoke", {
            form: { token: chosen, token_type_hint: hint, client_id: clientId }, retry: "safe"
        });
        if (chosen === this.refreshToken || chosen === this.http.token) {
            this.http.token = undefined;
            this.refreshToken = undefined;
        }
    }
    // ------------------------------------------------------------------------------------------ kinds, games
    kinds() {
        return this.get("/v1/kinds");
    }
    kind(kind) {
        return this.get(`/v1/kinds/${seg(kind)}`);
    }
    kindComponents(kind) {
        return this.get(`/v1/kinds/${seg(kind)}/components`);
    }
    listGames(query = {}) {
        return this.get("/v1/games", query);
    }
    /** Create a game (the creator takes a seat unless `join: false`; `bots` fill the seats after the creator). */
    createGame(body, options) {
        return this.keyed("/v1/games", body, options);
    }
    game(id, signal, query = {}) {
        return this.get(game(id), query, signal);
    }
    /** The game as it was at `version` (with `seat`, that seat's view, as far as the caller may see). */
    gameAt(id, version, query = {}) {
        return this.get(`${game(id)}/versions/${version}`, query);
    }
    boardSvg(id) {
        return this.text(`${game(id)}/board.svg`);
    }
    /** The full log as NDJSON (after the end). */
    exportGame(id) {
        return this.text(`${game(id)}/export`);
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
    legal(id, signal, query = {}) {
        return this.get(`${game(id)}/legal`, query, signal);
    }
    events(id, query = {}) {
        return this.get(`${game(id)}/events`, query);
    }
    /**
     * Send a command for the caller's seat. It carries an `Idempotency-Key` (a fresh one unless
     * given) and is retried with that same key on network errors, 429, 503 and contention (for at
     * least `minRetrySpanMs`, 20 s: a restart is waited out), so it acts at most once. A
     * `VersionConflictError` or `RuleViolationError` is thrown, never retried.
     */
    command(id, command, options = {}) {
        const body = { command, expected_version: options.expectedVersion ?? null };
        const query = { include: options.include?.join(","), dry_run: options.dryRun ? true : undefined };
        return this.keyed(`${game(id)}/commands`, body, options, query);
    }
    leaderboard(kind, query = {}) {
        return this.get(`/v1/leaderboards/${seg(kind)}`, query);
    }
    stats(query = {}) {
        return this.get("/v1/stats", query);
    }
    health() {
        return this.get("/healthz");
    }
    ready() {
        return this.get("/readyz");
    }
    // ------------------------------------------------------------------------------------------ streams
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
    /** Follow several games (and with `personal: true` the caller's notices) on one connection; with no game
     *  yet (a spectator's `follow({ games: [] })`) it waits, `idle`, for `setGames`. */
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
    /** Follow a tournament (public): its state, then its events; ends after `TournamentEnded`. */
    followTournament(id, options = {}) {
        return new LogStream(this.http, `${tournament(id)}/stream`, "tournament.TournamentEnded", { ...options, transport: "fetch" }); // named events: EventSource would need each name
    }
    /** Follow an arena (public): its state, then its events; ends after `TournamentEnded` (every format's end). */
    followArena(id, options = {}) {
        return new LogStream(this.http, `${arena(id)}/stream`, "tournament.TournamentEnded", { ...options, transport: "fetch" });
    }
    // ------------------------------------------------------------------------------------------ tournaments
    // (the tournament and arena writes take no Idempotency-Key: they are retried on 429 only)
    tournaments(query = {}) {
        return this.get("/v1/tournaments", query);
    }
    /** A tournament organised by this player. */
    createTournament(body) {
        return this.post("/v1/tournaments", body);
    }
    tournament(id) {
        return this.get(tournament(id));
    }
    tournamentEvents(id, query = {}) {
        return this.get(`${tournament(id)}/events`, query);
    }
    /** Register the caller (or, for the organiser, `body.player_id`): the answer is that player's entry, not the
     * tournament (`tournament(id)` reads it, `followTournament` follows it from the entry's `version`). */
    registerFor(id, body = {}) {
        return this.post(`${tournament(id)}/register`, body);
    }
    /** Withdraw the caller (or, for the organiser, `body.player_id`): the answer is that player's entry. */
    withdrawFrom(id, body = {}) {
        return this.post(`${tournament(id)}/withdraw`, body);
    }
    startTournament(id) {
        return this.post(`${tournament(id)}/start`);
    }
    /** The organiser registers bots (through the tournament's own registration, so its rules apply). */
    addTournamentBots(id, body) {
        return this.post(`${tournament(id)}/bots`, body);
    }
    forbidPairing(id, players) {
        return this.post(`${tournament(id)}/forbidden-pairings`, { players });
    }
    /** The organiser sets the next round's tables (players in seat order) and byes (Swiss). */
    setPairings(id, round, tables, byes = []) {
        return this.post(`${tournament(id)}/pairings`, { round, tables, byes });
    }
    adjudicate(id, gameId, ranks) {
        return this.post(`${tournament(id)}/games/${seg(gameId)}/adjudicate`, { ranks });
    }
    annul(id, gameId) {
        return this.post(`${tournament(id)}/games/${seg(gameId)}/annul`);
    }
    pausePlayer(id, body = {}) {
        return this.post(`${tournament(id)}/pause`, body);
    }
    resumePlayer(id, body = {}) {
        return this.post(`${tournament(id)}/resume`, body);
    }
    /** A slow tournament: the caller's weekly playing windows (minutes from Monday 00:00 UTC); [] = any time. */
    setWindows(id, windows) {
        return this.post(`${tournament(id)}/windows`, { windows }, "PUT");
    }
    removePlayer(id, body) {
        return this.post(`${tournament(id)}/remove`, body);
    }
    tournamentReport(id) {
        return this.get(`${tournament(id)}/report`);
    }
    tournamentReportCsv(id, query = {}) {
        return this.text(`${tournament(id)}/report/csv`, query);
    }
    // ------------------------------------------------------------------------------------------ arenas
    arenas(query = {}) {
        return this.get("/v1/arenas", query);
    }
    createArena(body) {
        return this.post("/v1/arenas", body);
    }
    arena(id) {
        return this.get(arena(id));
    }
    arenaEvents(id, query = {}) {
        return this.get(`${arena(id)}/events`, query);
    }
    /** The arena's organiser enters bots (the arena's own rule; they play every game it pairs them into). */
    addArenaBots(id, body) {
        return this.post(`${arena(id)}/bots`, body);
    }
    /** Join the arena, or come back after a pause: the answer is the caller's part of the arena (their points,
     * streak, games, presence, the game they are in, the arena's status, players and `version`), not the arena
     * (`arena(id)` reads it with the standings, `followArena` follows it from `version`); `leaveArena`,
     * `pauseArena` and `berserk` answer the same way. */
    joinArena(id, body = {}) {
        return this.post(`${arena(id)}/join`, body);
    }
    leaveArena(id) {
        return this.post(`${arena(id)}/leave`);
    }
    pauseArena(id) {
        return this.post(`${arena(id)}/pause`);
    }
    berserk(id, gameId) {
        return this.post(`${arena(id)}/games/${seg(gameId)}/berserk`);
    }
    // --------------------------------------------------------------------- the transparency log (docs/audit.md)
    /** The log's origin, its signer's public key and its size. */
    logInfo() {
        return this.get("/v1/log");
    }
    /** The newest signed checkpoint (a C2SP signed note) with its witnesses' cosignatures. */
    checkpoint() {
        return this.text("/v1/log/checkpoint");
    }
    /** The signed checkpoint published for a tree of `size` leaves. */
    checkpointOfSize(size) {
        return this.text(`/v1/log/checkpoints/${size}`);
    }
    /** Sign a checkpoint now (the admin token). */
    issueCheckpoint() {
        return this.http.request("POST", "/v1/log/checkpoints", { retry: "unsafe", text: true })
            .then((a) => a.data);
    }
    /** Submit a witness's cosignature of a checkpoint; the answer is the note with it appended. */
    addCosignature(body) {
        return this.http.request("POST", "/v1/log/cosignatures", { body, retry: "unsafe", text: true })
            .then((a) => a.data);
    }
    logLeaves(query = {}) {
        return this.get("/v1/log/leaves", query);
    }
    /** Proofs that a game's or competition's leaves are in the tree of `size` leaves (the newest if omitted). */
    inclusionProof(streamId, size) {
        return this.get(`/v1/log/proofs/inclusion/${seg(streamId)}`, { size });
    }
    /** The proof that the tree of `second` leaves extends the tree of `first` leaves. */
    consistencyProof(first, second) {
        return this.get("/v1/log/proofs/consistency", { first, second });
    }
    // ------------------------------------------------------------------------------------------ bot workers
    /** A bot worker's leases (the admin token only). */
    leaseBots(body) {
        return this.post("/v1/bots/leases", body);
    }
    botDone(id) {
        return this.post(`/v1/bots/${seg(id)}/done`);
    }
}
/**
 * Every operationId of openapi/openapi.json and the methods that perform it. Typed over the generated
 * `operations`, so an operation added to the document without a method here does not compile.
 */
export const OPERATIONS = {
    getAuthorizationServerMetadata: ["oauthMetadata"],
    health: ["health"],
    ready: ["ready"],
    oauthRevoke: ["revokeGrant"],
    oauthToken: ["exchangeCode", "refresh", "StelaClient.fromAuthorizationCode"],
    listArenas: ["arenas"],
    createArena: ["createArena"],
    getArena: ["arena"],
    getArenaEvents: ["arenaEvents"],
    berserkInArena: ["berserk"],
    joinArena: ["joinArena"],
    addArenaBots: ["addArenaBots"],
    leaveArena: ["leaveArena"],
    pauseArena: ["pauseArena"],
    streamArena: ["followArena"],
    leaseBots: ["leaseBots"],
    getLogInfo: ["logInfo"],
    getCheckpoint: ["checkpoint"],
    getCheckpointOfSize: ["checkpointOfSize"],
    issueCheckpoint: ["issueCheckpoint"],
    addCosignature: ["addCosignature"],
    listLogLeaves: ["logLeaves"],
    getInclusionProof: ["inclusionProof"],
    getConsistencyProof: ["consistencyProof"],
    finishBot: ["botDone"],
    listGames: ["listGames"],
    createGame: ["createGame"],
    getGame: ["game"],
    getBoardPicture: ["boardSvg"],
    sendCommand: ["command"],
    getEvents: ["events"],
    exportGame: ["exportGame"],
    joinGame: ["join"],
    leaveGame: ["leave"],
    getLegalCommands: ["legal"],
    startGame: ["start"],
    streamGame: ["followGame"],
    createGameStreamTicket: ["gameStreamTicket"],
    getGameAtVersion: ["gameAt"],
    listKinds: ["kinds"],
    getKind: ["kind"],
    getKindComponents: ["kindComponents"],
    getLeaderboard: ["leaderboard"],
    registerApp: ["registerApp"],
    describeAuthorization: ["describeAuthorization"],
    decideAuthorization: ["decideAuthorization"],
    createPlayer: ["StelaClient.register"],
    getMe: ["me", "StelaClient.signIn"],
    listAuthorizedApps: ["authorizedApps"],
    revokeAuthorizedApp: ["revokeApp"],
    setPassword: ["setPassword"],
    streamMyGames: ["followPersonal"],
    createPersonalStreamTicket: ["personalStreamTicket"],
    revokeToken: ["revokeToken"],
    rotateToken: ["rotateToken"],
    listAccessTokens: ["tokens"],
    createAccessToken: ["createToken"],
    revokeAccessToken: ["revokeAccessToken"],
    getPlayer: ["player"],
    listPlayerGames: ["playerGames"],
    signIn: ["signInWithPassword", "StelaClient.signInWithPassword"],
    getStats: ["stats"],
    streamMany: ["follow"],
    createStreamTicket: ["streamTicket"],
    listTournaments: ["tournaments"],
    createTournament: ["createTournament"],
    getTournament: ["tournament"],
    addTournamentBots: ["addTournamentBots"],
    getTournamentEvents: ["tournamentEvents"],
    forbidTournamentPairing: ["forbidPairing"],
    setTournamentPairings: ["setPairings"],
    adjudicateTournamentGame: ["adjudicate"],
    annulTournamentGame: ["annul"],
    pauseTournamentPlayer: ["pausePlayer"],
    registerForTournament: ["registerFor"],
    removeTournamentPlayer: ["removePlayer"],
    getTournamentReport: ["tournamentReport"],
    getTournamentReportCsv: ["tournamentReportCsv"],
    resumeTournamentPlayer: ["resumePlayer"],
    setTournamentWindows: ["setWindows"],
    startTournament: ["startTournament"],
    streamTournament: ["followTournament"],
    withdrawFromTournament: ["withdrawFrom"],
};
