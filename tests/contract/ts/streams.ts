// Frames of every stream, typed by the generated document (docs/streams.md): each handler must type-check.
import type { components, paths } from "./stela";

type Schemas = components["schemas"];
type MultiplexedFrame = paths["/v1/stream"]["get"]["responses"][200]["content"]["text/event-stream"];
type GameFrame = paths["/v1/games/{game_id}/stream"]["get"]["responses"][200]["content"]["text/event-stream"];
type PersonalFrame = paths["/v1/players/me/stream"]["get"]["responses"][200]["content"]["text/event-stream"];
type TournamentFrame =
  paths["/v1/tournaments/{tournament_id}/stream"]["get"]["responses"][200]["content"]["text/event-stream"];

export function onMultiplexed(frame: MultiplexedFrame, positions: Map<string, number>): string {
  switch (frame.type) {
    case "snapshot": positions.set(frame.game_id, frame.game.version); return `${frame.game.kind} ${frame.game.status}`;
    case "event": positions.set(frame.game_id, frame.event.version); return frame.event.type;
    case "turn": {
      const commands: Schemas["Command"][] = frame.commands ?? [];
      return `${frame.game_id}@${frame.version}: ${frame.your_turn ? commands.length : "not"} (${frame.to_act.join(",")})`;
    }
    case "ready": return Object.keys(frame.games).join(",") + (frame.personal ?? "");
    case "end": return frame.reason === "revoked" ? "sign in again" : "reconnect";
    case "game.state": case "game.started": case "game.your_turn": case "game.ended":
      return `${frame.kind} ${frame.game_id} ${frame.your_turn} ${frame.outcome?.winners.join(",") ?? ""}`;
  }
}

export function onGame(frame: GameFrame): number {
  return "id" in frame ? frame.version : "game" in frame ? frame.game.version : frame.version;
}

export function onPersonal(frame: PersonalFrame): boolean {
  const kind: Schemas["Kind"] = frame.kind;
  return frame.type === "game.your_turn" && frame.your_turn && kind.length > 0;
}

export function onTournament(frame: TournamentFrame): string {
  if (!("data" in frame)) return "snapshot";
  switch (frame.type) {
    case "tournament.RoundPaired": return `round ${frame.data.round}: ${frame.data.tables.length} tables`;
    case "tournament.TournamentEnded": return "ended";
    default: return frame.type;
  }
}

export const create: Schemas["GameCreate"] = { kind: "tikal", seats: 3, options: { variant: "auction" } };
