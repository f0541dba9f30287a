/**
 * Server-Sent Events on two carriers with one interface. In a browser the native `EventSource`
 * (it authenticates with a stream ticket in the URL and reconnects by itself with
 * `Last-Event-ID`); elsewhere, or when asked, `fetch` with a streamed body, which can send
 * `Authorization` and `Last-Event-ID` headers. Either reports a dropped connection to the stream
 * driver (`stream.ts`), which decides whether, when and from where to reconnect.
 */
import { errorFromProblem, NetworkError, problemFrom } from "./errors.js";
import { parseRetryAfter } from "./retry.js";

export interface SseMessage {
  /** the `event:` field, `message` when absent */
  event: string;
  data: string;
  /** the last `id:` seen on this connection (the SSE "last event ID") */
  id: string;
}

/** An incremental `text/event-stream` parser (WHATWG HTML, "Server-sent events", parsing rules). */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private lastId = "";
  private pendingCR = false;
  /** the last `retry:` field, in milliseconds */
  retryMs: number | undefined;

  constructor(lastId = "") {
    this.lastId = lastId;
  }

  /** Feed a chunk of text; returns the messages it completes. */
  feed(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.pendingCR && text.startsWith("\n")) text = text.slice(1); // a CRLF split across chunks
    this.pendingCR = text.endsWith("\r");
    this.buffer += text;
    const lines = this.buffer.split(/\r\n|\r|\n/);
    this.buffer = lines.pop() ?? "";
    const out: SseMessage[] = [];
    for (const line of lines) {
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.lastId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    const data = this.data;
    const event = this.event || "message";
    this.data = [];
    this.event = "";
    if (data.length === 0) return undefined;
    return { event, data: data.join("\n"), id: this.lastId };
  }
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

/** The response's refusal as a typed error (used by both carriers). */
async function refusal(response: Response): Promise<Error> {
  return errorFromProblem(await problemFrom(response), parseRetryAfter(response.headers.get("Retry-After")));
}

/**
 * The fetch carrier: one request, read to its end; any fetch works (Node's, a browser's). A
 * connection silent for `idleMs` (the server sends a heartbeat every 15 s by default) is taken
 * for dead, as a connection lost without a FIN would otherwise hang forever.
 */
export function fetchCarrier(fetcher: typeof fetch = globalThis.fetch.bind(globalThis), idleMs = 60_000): SseCarrier {
  return (request, handlers) => {
    const abort = new AbortController();
    let closed = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const alive = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(new Error(`no bytes for ${idleMs} ms`)), idleMs);
    };
    const run = async (): Promise<void> => {
      const response = await fetcher(request.url, {
        headers: { ...request.headers, Accept: "text/event-stream" }, signal: abort.signal, cache: "no-store",
      });
      if (!response.ok || !response.body) return handlers.onDrop(await refusal(response));
      handlers.onOpen();
      const parser = new SseParser(request.headers["Last-Event-ID"] ?? "");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        alive();
        const { done, value } = await reader.read();
        if (done || closed) break;
        for (const message of parser.feed(value)) {
          if (closed) return;
          handlers.onMessage(message);
        }
      }
      if (!closed) handlers.onDrop(undefined);
    };
    alive();
    run().catch((cause: unknown) => {
      if (!closed) handlers.onDrop(new NetworkError(`stream ${request.url}: ${String(abort.signal.reason ?? cause)}`, cause));
    }).finally(() => clearTimeout(idle));
    return {
      close() {
        closed = true;
        clearTimeout(idle);
        abort.abort();
      },
    };
  };
}

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
export function eventSourceCarrier(Source: EventSourceClass = (globalThis as { EventSource?: EventSourceClass }).EventSource!,
                                   fetcher: typeof fetch = globalThis.fetch.bind(globalThis)): SseCarrier {
  return (request, handlers) => {
    const source = new Source(request.url);
    let closed = false;
    source.onopen = () => handlers.onOpen();
    source.onmessage = (message: MessageEvent) =>
      handlers.onMessage({ event: message.type, data: String(message.data), id: message.lastEventId });
    source.onerror = () => {
      if (closed) return;
      if (source.readyState !== 2) return handlers.onInterrupted();
      source.close();
      closed = true;
      probe(fetcher, request.url).then(handlers.onDrop, handlers.onDrop);
    };
    return {
      close() {
        closed = true;
        source.close();
      },
    };
  };
}

/** Why a stream URL is refused now (undefined: it is not, the failure has passed). */
async function probe(fetcher: typeof fetch, url: string): Promise<unknown> {
  const abort = new AbortController();
  try {
    const response = await fetcher(url, { headers: { Accept: "text/event-stream" }, signal: abort.signal });
    if (response.ok) return undefined;
    return await refusal(response);
  } catch (cause) {
    return new NetworkError(`stream ${url}: ${String(cause)}`, cause);
  } finally {
    abort.abort();
  }
}

/** The browser's EventSource when there is one, else fetch. */
export function defaultCarrier(fetcher?: typeof fetch, idleMs?: number): { carrier: SseCarrier; native: boolean } {
  if (typeof (globalThis as { EventSource?: unknown }).EventSource === "function") {
    return { carrier: eventSourceCarrier(undefined, fetcher), native: true };
  }
  return { carrier: fetchCarrier(fetcher, idleMs), native: false };
}
