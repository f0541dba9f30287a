// The SDK's whole-API surface against a live server: password sign-up and sign-in, a scoped token, an app
// signing a player in with PKCE (code exchange, refresh with rotation, RFC 7009 log-out), a game against a
// bot followed by a spectator whose stream started with no game, and a tournament of bots to its end.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { authorizationRequest, codeFromRedirect, ForbiddenError, queryOf, StelaClient, UnauthorizedError,
         type Frame, type LogFrame } from "../../src/index.js";
import { server, closeTracked, track, until } from "./harness.js";

before(() => server.start());
after(closeTracked);
const REDIRECT = "http://127.0.0.1:8765/back";

test("accounts, scoped tokens and the PKCE flow of a public app", { timeout: 300_000 }, async () => {
  const { client: ann, player } = await StelaClient.register(server.url, "Ann");
  const login = `ann-${Date.now().toString(36)}`;
  assert.equal((await ann.setPassword({ password: "a long passphrase", login })).login, login);
  const { client: again, session } = await StelaClient.signInWithPassword(server.url, login, "a long passphrase");
  assert.equal(session.player_id, player.id);
  const reader = await again.createToken({ name: "reader", scopes: ["read"] });
  const readOnly = new StelaClient({ baseUrl: server.url, token: reader.token });
  assert.equal((await readOnly.me()).id, player.id);
  await assert.rejects(readOnly.createGame({ kind: "coatl", seats: 2 }), ForbiddenError);
  assert.ok((await again.tokens()).some((t) => t.id === reader.id));
  await again.revokeAccessToken(reader.id);
  await assert.rejects(readOnly.me(), UnauthorizedError);

  const app = await ann.registerApp({ name: "Sample", redirect_uris: [REDIRECT], scopes: ["read", "play"] });
  assert.match(String((await ann.oauthMetadata())["revocation_endpoint"]), /\/oauth\/revoke$/);
  const request = await authorizationRequest({ baseUrl: server.url, clientId: app.client_id, redirectUri: REDIRECT,
                                               scopes: ["read", "play"] });
  assert.equal((await ann.describeAuthorization(queryOf(request))).name, "Sample");
  const back = (await ann.decideAuthorization(queryOf(request), true)).redirect_to;
  const { client: device, tokens } = await StelaClient.fromAuthorizationCode(server.url, request,
                                                                            codeFromRedirect(request, back));
  assert.equal((await device.me()).id, player.id);
  const spent = tokens.refresh_token;
  const rotated = await device.refresh(app.client_id);
  assert.notEqual(rotated.refresh_token, spent);
  assert.equal(device.refreshToken, rotated.refresh_token);
  await assert.rejects(new StelaClient({ baseUrl: server.url }).refresh(app.client_id, spent), { code: "invalid_grant" });
  // the replay ended that grant; a fresh one, then logged out with RFC 7009
  const second = await authorizationRequest({ baseUrl: server.url, clientId: app.client_id, redirectUri: REDIRECT,
                                              scopes: ["read"] });
  const { client: laptop } = await StelaClient.fromAuthorizationCode(server.url, second, codeFromRedirect(second,
    (await ann.decideAuthorization(queryOf(second), true)).redirect_to));
  const access = laptop.token!;
  assert.equal((await laptop.me()).id, player.id);
  assert.ok((await ann.authorizedApps()).some((a) => a.client_id === app.client_id));
  await laptop.revokeGrant(app.client_id);
  assert.equal(laptop.token, undefined);
  await assert.rejects(new StelaClient({ baseUrl: server.url, token: access }).me(), UnauthorizedError);
  // every grant is over (one replayed, one logged out): the app holds nothing of Ann's to revoke
  assert.ok(!(await ann.authorizedApps()).some((a) => a.client_id === app.client_id));
  await assert.rejects(ann.revokeApp(app.client_id), { code: "app_not_found" });
});

test("a spectator's stream with no game waits for setGames, then follows a game against a bot", { timeout: 300_000 }, async () => {
  const refused = await fetch(`${server.url}/v1/stream`);  // what the server says to a stream of nothing
  assert.equal(refused.status, 400);
  const spectator = new StelaClient({ baseUrl: server.url });
  const watching = track(spectator.follow({ games: [] }));
  const frames: Frame[] = [];
  const errors: unknown[] = [];
  watching.on("frame", (f) => frames.push(f));
  watching.on("error", (e) => errors.push(e));
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(watching.state, "idle");

  const { client: ann } = await StelaClient.register(server.url, "Ann");
  const game = await ann.createGame({ kind: "coatl", seats: 2, bots: [{ strategy: "random", strength: 1 }] });
  assert.ok(game.seats[1]!.player_id);
  watching.setGames([game.id]);
  await until(() => frames.some((f) => f.type === "snapshot"), "the spectator's snapshot");
  await ann.start(game.id).catch(() => undefined);  // the bot's worker may have started it first
  await until(() => frames.some((f) => f.type === "event"), "the game's events, live");
  assert.deepEqual(errors, []);
  assert.notEqual(watching.state as string, "closed");
  watching.close();
});

test("a tournament of bots run with the organiser's tools and followed to its end", { timeout: 600_000 }, async () => {
  const { client: org } = await StelaClient.register(server.url, "Org");
  const created = await org.createTournament({ kind: "coatl", seats: 2, rounds: 1, name: "bots only" });
  const id = created.tournament_id;
  const view = await org.addTournamentBots(id, { count: 4, strategy: "random", strength: 1 });
  const players = view.standings.map((s) => s.player_id);
  assert.equal(players.length, 4);
  await org.forbidPairing(id, players.slice(0, 2));
  const frames: LogFrame[] = [];
  const following = track(org.followTournament(id));
  const errors: unknown[] = [];
  following.on("frame", (f) => frames.push(f));
  following.on("error", (e) => errors.push(e));
  await org.startTournament(id);
  await until(() => following.state === "closed", "the tournament's end", 500_000);
  const types = frames.map((f) => f.type === "event" ? f.event.type : f.type);
  assert.ok(types.includes("tournament.TournamentEnded") && errors.length === 0, `${types} ${errors}`);
  assert.equal(frames[0]!.type, "snapshot");
  assert.match(await org.tournamentReportCsv(id), /,/);
  assert.ok((await org.tournaments({ kind: "coatl" })).items.some((t) => t.tournament_id === id));
});
