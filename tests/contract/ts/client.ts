// A small client typed by the types openapi-typescript generates from openapi/openapi.json.
// It must type-check (tsc --noEmit): commands, views and events are named, discriminated types.
import type { components } from "./stela";

type Schemas = components["schemas"];
type Command = Schemas["Command"];
type View = Schemas["View"];
type Event = Schemas["Event"];
type Game = Schemas["GameOut"];

export const commands: Command[] = [
  { type: "tikal.PlaceTile", q: 1, r: -1, rotation: 2 },
  { type: "tikal.PlaceTile", q: 0, r: 1 },  // rotation has a default: optional in a request
  { type: "tikal.EndTurn" },
  { type: "coatl.TakeProphecy", card: null },
  { type: "tobago.EndTurn" },
  { type: "goldmine.Roll" },
  { type: "table.Resign" },
];

export function describe(game: Game): string {
  const view: View | null | undefined = game.view;
  if (!view) return `${game.kind}: not started`;
  const common = `seat ${view.seat ?? "spectator"}, phase ${view.phase}, to act ${view.to_act.join(",")}`;
  switch (view.kind) {
    case "tikal": return `${common}; ${view.board.length} spaces, ${view.ap_left} AP left`;
    case "coatl": return `${common}; row of ${view.row.length} prophecies, first card ${view.row[0]?.id}`;
    case "tobago": return `${common}; ${view.maps.length} treasure maps, ${view.island.length} land hexes`;
    case "goldmine": return `${common}; ${view.board.length} tiles, target ${view.target}`;
  }
}

export function eventSummary(event: Event): string {
  switch (event.type) {
    case "table.GameEnded": return `winners ${event.data.outcome.winners.join(",")}`;
    case "table.SeatTaken": return `${event.data.name} sits at ${event.data.seat}`;
    case "tikal.TilePlaced": return `tile at ${event.data.q},${event.data.r}`;
    default: return event.type;
  }
}

// A command's wrong field must not type-check: kept out of the build, checked by the test.
