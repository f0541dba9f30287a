import type { Http } from "./http.js";
import { type RetryPolicy } from "./retry.js";
import { type SseMessage, type SseRequest } from "./sse.js";
/** `idle`: nothing to follow yet (a multiplexed stream with no game): it connects once there is something */
export type StreamState = "idle" | "connecting" | "open" | "reconnecting" | "closed";
export interface StreamOptions {
    /** `auto` (default): the browser's EventSource with a ticket when there is one, else fetch */
    transport?: "auto" | "eventsource" | "fetch";
    /** reconnect back-off (attempts are unlimited: a stream retries until closed or refused for good) */
    retry?: Partial<RetryPolicy>;
    /** fetch carrier: a connection silent this long is dropped and resumed (default 60 s; heartbeats come every 15 s) */
    idleTimeoutMs?: number;
}
export interface StreamHandlers<F> {
    frame?: (frame: F) => void;
    state?: (state: StreamState) => void;
    /** `willRetry` false: the stream is over (closed with this error) */
    error?: (error: unknown, willRetry: boolean) => void;
}
/** What a stream kind supplies: how to build its request and how to take in its messages. */
export declare abstract class ResumableStream<F> implements AsyncIterable<F> {
    protected readonly http: Http;
    /** true on the EventSource carrier: requests authenticate with a ticket, not a header */
    protected readonly native: boolean;
    private readonly carrier;
    private readonly policy;
    private readonly listeners;
    private connection;
    private failures;
    private timer;
    private generation;
    /** connections the driver opened so far (the first included) */
    opens: number;
    /** connections that reached `open`, the carrier's own reconnects (EventSource's) included */
    connects: number;
    state: StreamState;
    protected constructor(http: Http, options?: StreamOptions);
    /** The request for the next connection (URL with ticket or headers, resume positions). */
    protected abstract request(): Promise<SseRequest>;
    /** Take in one message: return the frames to deliver, in order (none for a duplicate). */
    protected abstract accept(message: SseMessage): F[];
    /** Whether the stream has delivered its last event: the next drop of the connection closes it for good. */
    protected over(): boolean;
    /** Whether there is anything to follow (else the stream waits, `idle`, without connecting). */
    protected hasSomethingToFollow(): boolean;
    /** Listen; returns a function that removes the listener. */
    on<K extends keyof StreamHandlers<F>>(kind: K, listener: NonNullable<StreamHandlers<F>[K]>): () => void;
    /** Open the first connection (the constructors of the public streams call it). */
    protected start(): void;
    /** Stop for good: no frame, state or error is delivered after this. */
    close(): void;
    /** Drop the connection and open a new one from the positions held (a gap, a changed set). */
    protected reconnect(): void;
    /** End the stream with an error no reconnect can cure. */
    protected fail(error: unknown): void;
    private connect;
    /** Hand frames to the listeners, unless the connection they came on has been replaced meanwhile. */
    protected deliver(frames: F[], generation?: number): void;
    private dropped;
    private schedule;
    private setState;
    /** Frames as an async iterator (ends when the stream is closed; throws its fatal error). */
    [Symbol.asyncIterator](): AsyncIterator<F>;
}
