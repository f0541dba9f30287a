// An arena through the SDK against a live server: the organiser creates it and enters a bot (the server's
// embedded bot worker plays it), a player follows it (snapshot, events, and a `standings` frame after each
// run of events), joins, is paired with the bot at once, and berserks in that game before their first move.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { StelaClient, type LogFrame } from "../../src/index.js";
import { closeTracked, server, track, until } from "./harness.js";

before(() => server.start());
after(closeTracked);

const TOTAL_SECONDS = 60; // each seat's clock: berserk needs one, and halves the berserker's

interface Standing { player_id: string; playing: string | null; berserks: number; name: string }

function standingsOf(frame: LogFrame | undefined): Standing[] {
  return frame && frame.type !== "event" ? (frame.state["standings"] as Standing[]) : [];
}

test("an arena with a bot: followed, joined, paired, and a berserk in the game it pairs", { timeout: 300_000 }, async () => {
  const { client: org } = await StelaClient.register(server.url, "Org");
  const { client: ann, player } = await StelaClient.register(server.url, "Ann");
  const created = await org.createArena({ kind: "coatl", seats: 2, minutes: 1, starts_in_seconds: 0, name: "live",
                                          time_control: { total_seconds: TOTAL_SECONDS } });
  const id = created.arena_id;
  assert.ok(created.berserk, "berserk is on by default with a chess clock");
  const entered = await org.addArenaBots(id, { count: 1, strategy: "random", strength: 1 });
  assert.equal(entered.players, 1);
  assert.match(entered.standings[0]!.name, / bot /);

  const frames: LogFrame[] = [];
  const errors: unknown[] = [];
  const following = track(ann.followArena(id));
  following.on("frame", (f) => frames.push(f));
  following.on("error", (e) => errors.push(e));
  await until(() => frames.length > 0, "the arena's snapshot");
  assert.equal(frames[0]!.type, "snapshot");
  assert.equal(standingsOf(frames[0]).length, 1, "the arena as it stands: the bot alone, unpaired");

  const joined = await ann.joinArena(id); // Ann's part of the arena, not the arena
  assert.deepEqual([joined.player_id, joined.presence, joined.players, joined.points], [player.id, "active", 2, 0]);
  // a standings frame (no event) shows Ann in a game: the arena paired her with the bot
  const mine = await until(() => frames.filter((f) => f.type === "standings").map(standingsOf)
    .flat().find((s) => s.player_id === player.id && s.playing), "a standings frame with Ann's game");
  const gameId = mine.playing!;
  const game = await ann.game(gameId);
  assert.equal(game.status, "active");
  const seat = game.your_seat!;
  assert.equal(game.seats.length, 2);

  const berserked = await ann.berserk(id, gameId);
  assert.deepEqual([berserked.player_id, berserked.berserks, berserked.playing], [player.id, 1, gameId]);
  const clock = (await ann.game(gameId)).clock!;
  assert.ok(clock.remaining_ms[seat]! <= TOTAL_SECONDS * 500, `Ann's time halved: ${JSON.stringify(clock)}`);

  const types = (): string[] => frames.flatMap((f) => f.type === "event" ? [f.event.type] : []);
  await until(() => types().includes("arena.Berserked"), "the berserk on the arena's stream");
  const events = types();
  assert.ok(events.indexOf("arena.PlayerJoined") < events.indexOf("arena.PlayersPaired"), events.join(" "));
  assert.ok(events.indexOf("arena.PlayersPaired") < events.indexOf("arena.Berserked"), events.join(" "));
  const versions = frames.flatMap((f) => f.type === "event" ? [f.event.version] : []);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b), "each event once, in order");
  const page = await org.arenaEvents(id);
  assert.deepEqual(page.events.map((e) => e.type).slice(-events.length), events);
  const view = await org.arena(id);
  assert.ok(view.games >= 1 && view.status === "open", JSON.stringify(view));
  assert.ok((await org.arenas()).items.some((a) => a.arena_id === id));
  assert.deepEqual(errors, []);
  following.close();
  await ann.leaveArena(id); // never paired again: the bot alone plays out the game and the arena's minute
});
