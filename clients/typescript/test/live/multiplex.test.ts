// The multiplexed stream in Node (fetch carrier): one connection per viewer follows two games and
// the personal notices across a server killed (SIGKILL) while commands are in flight; the second
// game is added to the first connection's set on the way.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { StelaClient, type Frame, type MultiStream } from "../../src/index.js";
import { eventsAsSeat, play, seeded, Server, twoPlayerGame, until } from "./harness.js";

const server = new Server();
after(() => server.stop());

function record(stream: MultiStream): Frame[] {
  const frames: Frame[] = [];
  stream.on("frame", (frame) => frames.push(frame));
  stream.on("error", (error, willRetry) => { if (!willRetry) throw error; });
  return frames;
}

test("one connection per viewer follows several games exactly once across a kill -9 mid-play", async () => {
  await server.start();
  const first = await twoPlayerGame(server.url, "coatl");
  const seats = first.seats;
  const second = await seats[0]!.createGame({ kind: "coatl", seats: 2 });
  await seats[1]!.join(second.id);
  await seats[0]!.start(second.id);
  const games = [first.gameId, second.id];
  const spectator = new StelaClient({ baseUrl: server.url });
  const streams = seats.map((c) => c.follow({ games: [games[0]!], personal: true, legal: true, transport: "fetch" }));
  streams.push(spectator.follow({ games, transport: "fetch" }));
  const frames = streams.map(record);
  await until(() => frames[0]!.some((f) => f.type === "ready"), "the first ready");
  for (const stream of streams.slice(0, 2)) stream.setGames(games); // a game added: the kept one resumes

  const random = seeded(11);
  const playing = (async () => {
    for (const id of games) while ((await play(seats, id, 100, random)) === "active");
  })();
  await until(async () => (await spectator.game(games[0]!)).version > 20, "some moves before the kill");
  await server.stop("SIGKILL"); // mid-play: a command's answer may be lost; its retry replays it by its key
  await server.start();
  await playing;

  const finals = await Promise.all(games.map(async (id) => (await spectator.game(id)).version));
  await until(() => streams.every((s) => games.every((id, i) => (s.positions[id] ?? 0) >= finals[i]!)), "the end");
  await until(() => games.every((id) => frames[0]!.some((f) => f.type === "game.ended" && f.game_id === id)),
              "the personal end notices");
  for (const stream of streams) stream.close();

  for (const [index, seat] of [[0, 0], [1, 1], [2, null]] as const) {
    assert.ok(streams[index]!.opens >= 2, "reconnected");
    for (const id of games) {
      const mine = frames[index]!.filter((f) => (f.type === "snapshot" || f.type === "event") && f.game_id === id);
      assert.equal(mine.filter((f) => f.type === "snapshot").length, 1, "one snapshot per game, however many reconnects");
      const [snapshot, ...events] = mine;
      if (snapshot?.type !== "snapshot") throw new Error("the snapshot comes first");
      const got = events.map((f) => (f.type === "event" ? f.event : undefined));
      const expected = await eventsAsSeat(spectator, id, snapshot.game.version, seat ?? 0);
      if (seat !== null) assert.deepEqual(got, expected, `seat ${seat}, game ${id}: every event once, in order`);
      else assert.deepEqual(got.map((e) => e?.version), [...new Set(got.map((e) => e?.version))].sort((a, b) => a! - b!));
    }
  }
});
