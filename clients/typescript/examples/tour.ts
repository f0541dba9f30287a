// The README's API tour through the SDK: `node build/examples/tour.js http://127.0.0.1:8000`
// (tests/sdk_typescript runs it against a live server, beside the curl version).
import { StelaClient, type GameFrame } from "@stela/client";

const api = process.argv[2] ?? "http://localhost:8000";

// register two players (each gets a bearer token, shown once: keep it to sign in again)
const { client: ann } = await StelaClient.register(api, "Ann");
const { client: bob, player } = await StelaClient.register(api, "Bob");
await StelaClient.signIn(api, player.token); // what a returning player does with a kept token
// the kinds, with option / command / event JSON schemas and every rule-violation code
console.log("kinds", (await ann.kinds()).map((k) => k.kind).join(" "));
// create (the creator takes seat 0), join, start; the options are typed per kind
const game = await ann.createGame({ kind: "coatl", seats: 2, options: { sacrifice_tokens: true } });
await bob.join(game.id);
await ann.start(game.id);
// who must act, and what may I do? every command in `legal` can be posted back unchanged
console.log("to_act", JSON.stringify((await ann.game(game.id)).to_act));
const legal = await ann.legal(game.id);
console.log("legal", JSON.stringify(legal.commands[0]));
// play it (an Idempotency-Key is sent and kept for every retry); the answer carries my new view and legal commands
const result = await ann.command(game.id, legal.commands[0]!, { expectedVersion: legal.version, include: ["view", "legal"] });
console.log("played", JSON.stringify({ version: result.version, events: result.events.map((e) => e.type),
                                        phase: result.view?.phase, legal: result.legal?.length }));
// (Cóatl opens with a simultaneous choice: Ann has chosen, so she has no legal command until Bob has too)
// several games and your turns on one connection: snapshot, turn (with legal commands), then ready
const many = bob.follow({ games: [game.id], personal: true, legal: true });
const seen: string[] = [];
for await (const frame of many) {
  seen.push(frame.type === "turn" ? `turn:${frame.commands?.length ?? 0}` : frame.type);
  if (frame.type === "ready") break;
}
many.close();
console.log("multiplexed", seen.join(" "));
// follow one game live: a snapshot first, then each event (the SDK resumes after any disconnect)
const stream = bob.followGame(game.id);
for await (const frame of stream as AsyncIterable<GameFrame>) {
  console.log("frame", frame.type, frame.type === "snapshot" ? frame.game.version : frame.event.version);
  if (frame.type === "snapshot") break;
}
stream.close();
// an account: a password, then sign in with the login (a session token); a game against a bot
const { login } = await ann.setPassword({ password: "a long passphrase", login: `ann-${game.id.slice(0, 8)}` });
const { client: annAgain } = await StelaClient.signInWithPassword(api, login, "a long passphrase");
const botGame = await annAgain.createGame({ kind: "coatl", seats: 2, bots: [{ strategy: "greedy", strength: 2 }] });
console.log("bots", botGame.seats.map((s) => s.name).join(" | "));
console.log("ratelimit", JSON.stringify(annAgain.rateLimit));
