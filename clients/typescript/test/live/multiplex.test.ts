// The multiplexed stream in Node (fetch carrier): one connection per viewer follows two games and
// the personal notices across a server killed (SIGKILL) while commands are in flight; the second
// game is added to the first connection's set on the way.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { StelaClient, type Frame, type MultiStream } from "../../src/index.js";
import { closeTracked, eventsAsSeat, play, saysEnded, seeded, server, track, twoPlayerGame, until } from "./harness.js";

after(closeTracked);

function record(stream: MultiStream): Frame[] {
  const frames: Frame[] = [];
  stream.on("frame", (frame) => frames.push(frame));
  stream.on("error", (error, willRetry) => { if (!willRetry) throw error; });
  return frames;
}

test("one connection per viewer follows several games exactly once across a kill -9 mid-play", { timeout: 600_000 }, async () => {
  await server.start();
  const first = await twoPlayerGame(server.url, "coatl");
  const seats = first.seats;
  const second = await seats[0]!.createGame({ kind: "coatl", seats: 2 });
  await seats[1]!.join(second.id);
  await seats[0]!.start(second.id);
  const games = [first.gameId, second.id];
  const spectator = new StelaClient({ baseUrl: server.url });
  const streams = seats.map((c) => track(c.follow({ games: [games[0]!], personal: true, legal: true, transport: "fetch" })));
  streams.push(track(spectator.follow({ games, transport: "fetch" })));
  const frames = streams.map(record);
  await until(() => frames[0]!.some((f) => f.type === "ready"), "the first ready");
  for (const stream of streams.slice(0, 2)) stream.setGames(games); // a game added: the kept one resumes

  const random = seeded(11);
  const playing = (async () => {
    for (const id of games) while ((await play(seats, id, 100, random)) === "active");
  })();
  await until(async () => (await spectator.game(games[0]!)).version > 20, "some moves before the kill");
  const beforeKill = streams.map((s) => ({ ...s.positions }));
  await server.stop("SIGKILL"); // mid-play: a command's answer may be lost; its retry replays it by its key
  await server.start();
  await playing;

  const finals = await Promise.all(games.map(async (id) => (await spectator.game(id)).version));
  await until(() => streams.every((s) => games.every((id, i) => (s.positions[id] ?? 0) >= finals[i]!)), "the end");
  await until(() => games.every((id) => frames[0]!.some((f) => saysEnded(f, id))),
              "the personal end notices").catch((error: Error) => {
    const notices = frames[0]!.filter((f) => f.type.startsWith("game."));
    throw new Error(`${error.message}: ${JSON.stringify(notices.map((n) => [n.type, (n as { game_id: string }).game_id.slice(0, 4), (n as { status: string }).status]))} games ${games.map((g) => g.slice(0, 4))}`);
  });
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
      const full = await eventsAsSeat(spectator, id, snapshot.game.version, null);
      if (seat !== null) {
        assert.deepEqual(got.map((e) => e?.version), expected.map((e) => e.version), `seat ${seat}, game ${id}: every event once, in order`);
        // each as the seat saw it; a connection resumed after the end gets the rest as the public log
        const live = beforeKill[index]![id] ?? 0;
        for (const [i, event] of got.entries()) {
          const own = isDeepStrictEqual(event, expected[i]);
          assert.ok(own || (event!.version > live && isDeepStrictEqual(event, full[i])),
                    `seat ${seat}, game ${id}: neither its own view nor the public log: ${JSON.stringify(
                      [event, expected[i], full[i]]).slice(0, 1500)}`);
        }
        assert.deepEqual(got.filter((e) => e!.version <= live), expected.filter((e) => e.version <= live),
                         "before the kill, exactly this seat's view");
      }
      else assert.deepEqual(got.map((e) => e?.version), [...new Set(got.map((e) => e?.version))].sort((a, b) => a! - b!));
    }
  }
});
