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
export type PlayerCreated = Schemas["PlayerCreated"];
export type Me = Schemas["Me"];
/** The JSON body of an operation's request. */
export type BodyOf<Op extends keyof operations> = operations[Op] extends {
    requestBody?: {
        content: {
            "application/json": infer B;
        };
    };
} ? B : never;
/** The JSON body of an operation's success answer. */
export type ResultOf<Op extends keyof operations, Status extends number = 200> = operations[Op]["responses"] extends Record<Status, {
    content: {
        "application/json": infer R;
    };
}> ? R : never;
/** An operation's query parameters. */
export type QueryOf<Op extends keyof operations> = operations[Op]["parameters"] extends {
    query?: infer Q;
} ? NonNullable<Q> : never;
/** A game's position in a stream: the version of the last event (or snapshot) received. */
export type Positions = Record<string, number>;
/** The personal stream's notice (`game.state`, `game.started`, `game.your_turn`, `game.ended`). */
export interface PersonalNotice {
    type: "game.state" | "game.started" | "game.your_turn" | "game.ended";
    game_id: string;
    kind: string;
    status: Game["status"];
    version: number;
    to_act: number[];
    your_turn: boolean;
    outcome?: Game["outcome"];
    /** with `legal: true` on the multiplexed stream, when `your_turn` */
    commands?: Command[];
}
/** Frames of the multiplexed stream (docs/streams.md), and of a game stream in the same shapes. */
export type SnapshotFrame = {
    type: "snapshot";
    game_id: string;
    game: Game;
};
export type EventFrame = {
    type: "event";
    game_id: string;
    event: Event;
};
export type TurnFrame = {
    type: "turn";
    game_id: string;
    version: number;
    status: Game["status"];
    to_act: number[];
    your_seat: number | null;
    your_turn: boolean;
    commands?: Command[];
};
export type ReadyFrame = {
    type: "ready";
    games: Positions;
    personal: number | null;
};
export type EndFrame = {
    type: "end";
    reason: "closing" | "revoked" | "lagging" | string;
};
export type GameFrame = SnapshotFrame | EventFrame;
export type Frame = SnapshotFrame | EventFrame | TurnFrame | ReadyFrame | PersonalNotice;
