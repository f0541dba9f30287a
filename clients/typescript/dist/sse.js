/**
 * Server-Sent Events on two carriers with one interface. In a browser the native `EventSource`
 * (it authenticates with a stream ticket in the URL and reconnects by itself with
 * `Last-Event-ID`); elsewhere, or when asked, `fetch` with a streamed body, which can send
 * `Authorization` and `Last-Event-ID` headers. Either reports a dropped connection to the stream
 * driver (`stream.ts`), which decides whether, when and from where to reconnect.
 */
import { errorFromProblem, NetworkError, problemFrom } from "./errors.js";
import { parseRetryAfter } from "./retry.js";
/** An incremental `text/event-stream` parser (WHATWG HTML, "Server-sent events", parsing rules). */
export class SseParser {
    buffer = "";
    data = [];
    event = "";
    lastId = "";
    pendingCR = false;
    /** the last `retry:` field, in milliseconds */
    retryMs;
    constructor(lastId = "") {
        this.lastId = lastId;
    }
    /** Feed a chunk of text; returns the messages it completes. */
    feed(chunk) {
        let text = chunk;
        if (this.pendingCR && text.startsWith("\n"))
            text = text.slice(1); // a CRLF split across chunks
        this.pendingCR = text.endsWith("\r");
        this.buffer += text;
        const lines = this.buffer.split(/\r\n|\r|\n/);
        this.buffer = lines.pop() ?? "";
        const out = [];
        for (const line of lines) {
            const message = this.line(line);
            if (message)
                out.push(message);
        }
        return out;
    }
    line(line) {
        if (line === "")
            return this.dispatch();
        if (line.startsWith(":"))
            return undefined;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" "))
            value = value.slice(1);
        if (field === "data")
            this.data.push(value);
        else if (field === "event")
            this.event = value;
        else if (field === "id" && !value.includes("\0"))
            this.lastId = value;
        else if (field === "retry" && /^\d+$/.test(value))
            this.retryMs = Number(value);
        return undefined;
    }
    dispatch() {
        const data = this.data;
        const event = this.event || "message";
        this.data = [];
        this.event = "";
        if (data.length === 0)
            return undefined;
        return { event, data: data.join("\n"), id: this.lastId };
    }
}
/** The response's refusal as a typed error (used by both carriers). */
async function refusal(response) {
    return errorFromProblem(await problemFrom(response), parseRetryAfter(response.headers.get("Retry-After")));
}
/**
 * The fetch carrier: one request, read to its end; any fetch works (Node's, a browser's). A
 * connection silent for `idleMs` (the server sends a heartbeat every 15 s by default) is taken
 * for dead, as a connection lost without a FIN would otherwise hang forever.
 */
export function fetchCarrier(fetcher = globalThis.fetch.bind(globalThis), idleMs = 60_000) {
    return (request, handlers) => {
        const abort = new AbortController();
        let closed = false;
        let idle;
        const alive = () => {
            clearTimeout(idle);
            idle = setTimeout(() => abort.abort(new Error(`no bytes for ${idleMs} ms`)), idleMs);
        };
        const run = async () => {
            const response = await fetcher(request.url, {
                headers: { ...request.headers, Accept: "text/event-stream" }, signal: abort.signal, cache: "no-store",
            });
            if (!response.ok || !response.body)
                return handlers.onDrop(await refusal(response));
            handlers.onOpen();
            const parser = new SseParser(request.headers["Last-Event-ID"] ?? "");
            const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
            for (;;) {
                alive();
                const { done, value } = await reader.read();
                if (done || closed)
                    break;
                for (const message of parser.feed(value)) {
                    if (closed)
                        return;
                    handlers.onMessage(message);
                }
            }
            if (!closed)
                handlers.onDrop(undefined);
        };
        alive();
        run().catch((cause) => {
            if (!closed)
                handlers.onDrop(new NetworkError(`stream ${request.url}: ${String(abort.signal.reason ?? cause)}`, cause));
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
/**
 * The EventSource carrier. While the browser reconnects by itself (after a network error) the
 * driver is only told `onInterrupted`; when EventSource gives up (`readyState` 2: a refusal such
 * as an expired ticket, a 429 or a 503), the same URL is fetched once to learn the refusal's
 * problem, so the driver can tell a fatal refusal from a passing one.
 */
export function eventSourceCarrier(Source = globalThis.EventSource, fetcher = globalThis.fetch.bind(globalThis)) {
    return (request, handlers) => {
        const source = new Source(request.url);
        let closed = false;
        source.onopen = () => handlers.onOpen();
        source.onmessage = (message) => handlers.onMessage({ event: message.type, data: String(message.data), id: message.lastEventId });
        source.onerror = () => {
            if (closed)
                return;
            if (source.readyState !== 2)
                return handlers.onInterrupted();
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
async function probe(fetcher, url) {
    const abort = new AbortController();
    try {
        const response = await fetcher(url, { headers: { Accept: "text/event-stream" }, signal: abort.signal });
        if (response.ok)
            return undefined;
        return await refusal(response);
    }
    catch (cause) {
        return new NetworkError(`stream ${url}: ${String(cause)}`, cause);
    }
    finally {
        abort.abort();
    }
}
/** The browser's EventSource when there is one, else fetch. */
export function defaultCarrier(fetcher, idleMs) {
    if (typeof globalThis.EventSource === "function") {
        return { carrier: eventSourceCarrier(undefined, fetcher), native: true };
    }
    return { carrier: fetchCarrier(fetcher, idleMs), native: false };
}
