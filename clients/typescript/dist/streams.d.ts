import type { Http } from "./http.js";
import type { SseMessage, SseRequest } from "./sse.js";
import { ResumableStream, type StreamOptions } from "./stream.js";
import type { Frame, GameFrame, PersonalNotice, Positions } from "./types.js";
export interface MultiStreamOptions extends StreamOptions {
    games?: string[];
    /** also the caller's personal notices (needs a token) */
    personal?: boolean;
    /** `turn` frames (and `your_turn` notices) carry the seat's legal commands */
    legal?: boolean;
    /** resume positions to start from (a game without one starts with its snapshot) */
    positions?: Positions;
    /** resume cursor of the personal notices */
    personalCursor?: number;
}
export declare class MultiStream extends ResumableStream<Frame> {
    private games;
    private readonly personal;
    private readonly legal;
    /** per game, the version of the last event or snapshot delivered */
    readonly positions: Positions;
    personalCursor: number | undefined;
    constructor(http: Http, options: MultiStreamOptions);
    /** The games followed now. */
    get following(): readonly string[];
    /**
     * Follow another set of games: reconnects, resuming the games kept, a snapshot for new ones. The
     * server refuses a connection that follows nothing (400), so with no game (and no personal notices)
     * the stream waits, `idle`, until a game is set.
     */
    setGames(games: string[]): void;
    protected hasSomethingToFollow(): boolean;
    protected request(): Promise<SseRequest>;
    protected accept(message: SseMessage): Frame[];
}
export declare class GameStream extends ResumableStream<GameFrame> {
    readonly gameId: string;
    private readonly positions;
    /** frames that arrived while the events missed were being read */
    private held;
    constructor(http: Http, gameId: string, options?: StreamOptions & {
        position?: number;
    });
    /** The version of the last event or snapshot delivered. */
    get position(): number | undefined;
    protected request(): Promise<SseRequest>;
    protected accept(message: SseMessage): GameFrame[];
    private admitFrame;
    /** Deliver the events in (from, to] from `/events`, then what arrived meanwhile. */
    private fillGap;
}
export declare class PersonalStream extends ResumableStream<PersonalNotice> {
    cursor: number | undefined;
    private readonly legal;
    constructor(http: Http, options?: StreamOptions & {
        cursor?: number;
        legal?: boolean;
    });
    protected request(): Promise<SseRequest>;
    protected accept(message: SseMessage): PersonalNotice[];
}
/** An event of a tournament or an arena (its `type`: `tournament.*`, and an arena's own `arena.*`). */
export interface LogEvent {
    version: number;
    type: string;
    data: Record<string, unknown>;
    at: string;
}
/** A frame of a tournament's or an arena's stream: its state on connect, then its events. */
/** A competition stream's frames: its state on connect, each event, and an arena's view after each run of
 *  events (`standings`: the live standings, cut to the first 100; no event, it moves no position). */
export type LogFrame = {
    type: "snapshot";
    state: Record<string, unknown>;
} | {
    type: "event";
    event: LogEvent;
} | {
    type: "standings";
    state: Record<string, unknown>;
};
/**
 * A tournament's or an arena's public stream (`GET /v1/{tournaments|arenas}/{id}/stream`): the state on
 * connect, then each event once, in order; it closes itself when the server ends the connection after
 * the last event (`tournament.TournamentEnded`, in every format, and what was appended with it).
 */
export declare class LogStream extends ResumableStream<LogFrame> {
    private readonly path;
    private readonly last;
    private version;
    private ended;
    constructor(http: Http, path: string, last: string, options?: StreamOptions);
    protected request(): Promise<SseRequest>;
    protected accept(message: SseMessage): LogFrame[];
    protected over(): boolean;
}
