// The SDK in Node (fetch carrier) against a live server restarted mid-game: each seat's game
// stream and the spectator's see every event they may see exactly once, in order.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { StelaClient, type GameFrame, type GameStream, type PersonalNotice } from "../../src/index.js";
import { assertSeatsView, closeTracked, play, saysEnded, seeded, server, track, twoPlayerGame, until } from "./harness.js";

after(closeTracked);

function record(stream: GameStream): GameFrame[] {
  const frames: GameFrame[] = [];
  stream.on("frame", (frame) => frames.push(frame));
  stream.on("error", (error, willRetry) => { if (!willRetry) throw error; });
  return frames;
}

test("a game played through the SDK is followed exactly once per seat across a server restart", { timeout: 600_000 }, async () => {
  await server.start();
  const { gameId, seats } = await twoPlayerGame(server.url, "coatl");
  const spectator = new StelaClient({ baseUrl: server.url });
  const streams = [...seats, spectator].map((client) => track(client.followGame(gameId, { transport: "fetch" })));
  const frames = streams.map(record);
  const notices: PersonalNotice[] = [];
  const personal = track(seats[0]!.followPersonal({ transport: "fetch", legal: true }));
  personal.on("frame", (notice) => notices.push(notice));
  const random = seeded(7);

  assert.equal(await play(seats, gameId, 15, random), "active");
  await server.stop(); // mid-game: every stream drops and resumes with Last-Event-ID
  await server.start();
  let status = "active";
  while (status === "active") status = await play(seats, gameId, 100, random);
  assert.equal(status, "finished");

  const final = (await spectator.game(gameId)).version;
  await until(() => streams.every((s) => (s.position ?? 0) >= final), "every stream to reach the end");
  await until(() => notices.some((n) => saysEnded(n, gameId)), "the personal end notice");
  for (const stream of [...streams, personal]) stream.close();
  assert.ok(notices.some((n) => n.your_turn && (n.commands?.length ?? 0) > 0), "your-turn notices carry the commands");

  for (const [seat, list] of frames.slice(0, 2).entries()) {
    assert.ok(streams[seat]!.opens >= 2, "the stream reconnected after the restart");
    const [snapshot, ...rest] = list;
    assert.equal(snapshot?.type, "snapshot");
    assert.equal(snapshot.game.your_seat, seat);
    assert.ok(rest.every((f) => f.type === "event"), "one snapshot, then only events");
    await assertSeatsView(spectator, gameId, snapshot.game.version, seat, rest.map((f) => f.type === "event" && f.event),
                          "this seat's view of every event");
  }
  const [mine, theirs] = [frames[0]!, frames[1]!].map((l) => l.filter((f) => f.type === "event").map((f) => JSON.stringify(f)));
  assert.ok(mine!.some((f, i) => f !== theirs![i]), "the seats' frames differ where a hand is private");
});
