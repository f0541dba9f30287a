/**
 * Names for the generated types (`generated/openapi.ts`, made by openapi-typescript from
 * openapi/openapi.json; never edited by hand), and the frame types of the streams.
 */
import type { components, operations } from "./generated/openapi.js";

export type { components, operations, paths } from "./generated/openapi.js";

export type Schemas = components["schemas"];
export type Command = Schemas["Command"];
export type Event = Schemas["Event"];
export type View = Schemas["View"];
export type Game = Schemas["GameOut"];
export type GameCreate = Schemas["GameCreate"];
export type CommandResult = Schemas["CommandResult"];
export type Legal = Schemas["LegalOut"];
export type EventPage = Schemas["EventPage"];
export type Ticket = Schemas["TicketOut"];
export type Kind = Schemas["Kind"];
export type PlayerCreated = Schemas["PlayerCreated"];
export type Me = Schemas["Me"];

/** The JSON body of an operation's request. */
export type BodyOf<Op extends keyof operations> =
  operations[Op] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** The JSON body of an operation's success answer. */
export type ResultOf<Op extends keyof operations, Status extends number = 200> =
  operations[Op]["responses"] extends Record<Status, { content: { "application/json": infer R } }> ? R : never;
/** An operation's query parameters. */
export type QueryOf<Op extends keyof operations> =
  operations[Op]["parameters"] extends { query?: infer Q } ? NonNullable<Q> : never;

/** A game's position in a stream: the version of the last event (or snapshot) received. */
export type Positions = Record<string, number>;

/** The personal stream's notice (`game.state`, `game.started`, `game.your_turn`, `game.ended`). */
export type PersonalNotice = Schemas["PersonalNotice"];

/** Frames of the multiplexed stream (docs/streams.md); a game stream's frames come in the same shapes. */
export type StreamFrame = Schemas["StreamFrame"];
export type SnapshotFrame = Schemas["SnapshotFrame"];
export type EventFrame = Schemas["EventFrame"];
export type TurnFrame = Schemas["TurnFrame"];
export type ReadyFrame = Schemas["ReadyFrame"];
export type EndFrame = Schemas["EndFrame"];
export type PersonalFrame = Schemas["PersonalFrame"];
export type GameFrame = SnapshotFrame | EventFrame;
/** What a `MultiStream` delivers: every frame but `end`, which the stream acts on itself. */
export type Frame = Exclude<StreamFrame, EndFrame>;
