// The SDK's signatures carry the generated types: documented bodies compile, misused ones do not.
// Checked by the compile of `npm test` itself (tsconfig.test.json, strict): a documented use that stops
// compiling fails it, and so does each `@ts-expect-error` whose line compiles (TS2578, an unused
// directive). Nothing here runs: `typeChecks` is never called.
import { StelaClient, type Frame } from "../../src/index.js";

export async function typeChecks(c: StelaClient): Promise<void> {
  // documented uses: defaults optional, options by kind, frames narrowed
  await c.createGame({ kind: "coatl", seats: 2, options: { sacrifice_tokens: true } });
  await c.createGame({ kind: "tikal", seats: 3 });
  await c.command("g", { type: "tikal.EndTurn" }, { expectedVersion: 3, include: ["view"] });
  c.follow({ games: ["g"] }).on("frame", (f: Frame) => {
    if (f.type === "event") console.log(f.event.version);
    if (f.type === "turn") console.log(f.your_turn, f.commands?.length);
    if (f.type === "game.ended") console.log(f.outcome?.winners);
  });
  // a registration and a withdrawal answer with the player's entry, which carries no field of standings
  const entry = await c.registerFor("t", { player_id: "p" });
  const left = await c.withdrawFrom("t");
  console.log(entry.registered, entry.version, left.name);
  // @ts-expect-error the entry is not the tournament
  console.log(entry.standings);
  // an arena's join, pause, leave and berserk answer with the player's part of the arena, no standings either
  const joined = await c.joinArena("a", { rating: 1500 });
  const berserked = await c.berserk("a", "g");
  console.log(joined.presence, joined.version, berserked.berserks, (await c.leaveArena("a")).presence);
  // @ts-expect-error the player's part is not the arena
  console.log((await c.pauseArena("a")).standings);
  // @ts-expect-error an unknown kind
  await c.createGame({ kind: "chess", seats: 2 });
  // @ts-expect-error another kind's option
  await c.createGame({ kind: "coatl", seats: 2, options: { variant: "auction" } });
  // @ts-expect-error q is a number
  await c.command("g", { type: "tikal.PlaceTile", q: "one", r: 0 });
}
