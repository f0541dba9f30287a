export interface SseMessage {
    /** the `event:` field, `message` when absent */
    event: string;
    data: string;
    /** the last `id:` seen on this connection (the SSE "last event ID") */
    id: string;
}
/** An incremental `text/event-stream` parser (WHATWG HTML, "Server-sent events", parsing rules). */
export declare class SseParser {
    private buffer;
    private data;
    private event;
    private lastId;
    private pendingCR;
    /** the last `retry:` field, in milliseconds */
    retryMs: number | undefined;
    constructor(lastId?: string);
    /** Feed a chunk of text; returns the messages it completes. */
    feed(chunk: string): SseMessage[];
    private line;
    private dispatch;
}
/** What a carrier tells the driver. */
export interface SseHandlers {
    onOpen(): void;
    onMessage(message: SseMessage): void;
    /** the carrier is reconnecting by itself (EventSource after a network error) */
    onInterrupted(): void;
    /** the connection is over and will not come back by itself: `error` says why (undefined: closed cleanly) */
    onDrop(error: unknown): void;
}
export interface SseRequest {
    url: string;
    /** headers for the fetch carrier (Authorization, Last-Event-ID); EventSource cannot send any */
    headers: Record<string, string>;
}
export interface SseConnection {
    close(): void;
}
export type SseCarrier = (request: SseRequest, handlers: SseHandlers) => SseConnection;
/**
 * The fetch carrier: one request, read to its end; any fetch works (Node's, a browser's). A
 * connection silent for `idleMs` (the server sends a heartbeat every 15 s by default) is taken
 * for dead, as a connection lost without a FIN would otherwise hang forever.
 */
export declare function fetchCarrier(fetcher?: typeof fetch, idleMs?: number): SseCarrier;
interface EventSourceLike {
    readyState: number;
    onopen: ((this: EventSourceLike, ev: Event) => unknown) | null;
    onmessage: ((this: EventSourceLike, ev: MessageEvent) => unknown) | null;
    onerror: ((this: EventSourceLike, ev: Event) => unknown) | null;
    close(): void;
}
type EventSourceClass = new (url: string) => EventSourceLike;
/**
 * The EventSource carrier. While the browser reconnects by itself (after a network error) the
 * driver is only told `onInterrupted`; when EventSource gives up (`readyState` 2: a refusal such
 * as an expired ticket, a 429 or a 503), the same URL is fetched once to learn the refusal's
 * problem, so the driver can tell a fatal refusal from a passing one.
 */
export declare function eventSourceCarrier(Source?: EventSourceClass, fetcher?: typeof fetch): SseCarrier;
/** The browser's EventSource when there is one, else fetch. */
export declare function defaultCarrier(fetcher?: typeof fetch, idleMs?: number): {
    carrier: SseCarrier;
    native: boolean;
};
export {};
