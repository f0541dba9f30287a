/**
 * The resumable stream driver shared by the multiplexed, game and personal streams. It opens a
 * connection on a carrier (`sse.ts`), hands each message to the stream's `accept` (which keeps
 * the resume positions, drops anything already delivered and asks for a reconnect on a gap), and
 * when the connection drops for good it reconnects with back-off (at least the server's
 * `Retry-After`), from the positions it holds, with a fresh stream ticket. Refusals that another
 * attempt cannot cure (400, 403, 404, a 401 on the token itself) end the stream with the typed error.
 */
import { ForbiddenError, InvalidRequestError, NotFoundError, StelaError, UnauthorizedError } from "./errors.js";
import { backoffMs, DEFAULT_RETRY } from "./retry.js";
import { defaultCarrier, eventSourceCarrier, fetchCarrier } from "./sse.js";
/** What a stream kind supplies: how to build its request and how to take in its messages. */
export class ResumableStream {
    http;
    /** true on the EventSource carrier: requests authenticate with a ticket, not a header */
    native;
    carrier;
    policy;
    listeners = { frame: [], state: [], error: [] };
    connection;
    failures = 0;
    timer;
    generation = 0;
    /** connections the driver opened so far (the first included) */
    opens = 0;
    /** connections that reached `open`, the carrier's own reconnects (EventSource's) included */
    connects = 0;
    state = "connecting";
    constructor(http, options = {}) {
        this.http = http;
        this.policy = { ...DEFAULT_RETRY, ...options.retry };
        const transport = options.transport ?? "auto";
        if (transport === "fetch") {
            this.carrier = fetchCarrier(undefined, options.idleTimeoutMs);
            this.native = false;
        }
        else if (transport === "eventsource") {
            this.carrier = eventSourceCarrier();
            this.native = true;
        }
        else {
            ({ carrier: this.carrier, native: this.native } = defaultCarrier(undefined, options.idleTimeoutMs));
        }
    }
    /** Whether the stream has delivered its last event: the next drop of the connection closes it for good. */
    over() {
        return false;
    }
    /** Whether there is anything to follow (else the stream waits, `idle`, without connecting). */
    hasSomethingToFollow() {
        return true;
    }
    /** Listen; returns a function that removes the listener. */
    on(kind, listener) {
        const list = this.listeners[kind];
        list.push(listener);
        return () => list.splice(list.indexOf(listener) >>> 0, 1);
    }
    /** Open the first connection (the constructors of the public streams call it). */
    start() {
        void this.connect();
    }
    /** Stop for good: no frame, state or error is delivered after this. */
    close() {
        this.generation += 1;
        clearTimeout(this.timer);
        this.connection?.close();
        this.connection = undefined;
        this.setState("closed");
    }
    /** Drop the connection and open a new one from the positions held (a gap, a changed set). */
    reconnect() {
        if (this.state === "closed")
            return;
        this.connection?.close();
        this.connection = undefined;
        this.schedule(0);
    }
    /** End the stream with an error no reconnect can cure. */
    fail(error) {
        if (this.state === "closed")
            return;
        this.close();
        for (const listener of this.listeners.error)
            listener(error, false);
    }
    async connect() {
        const generation = ++this.generation;
        if (!this.hasSomethingToFollow())
            return this.setState("idle");
        if (this.state === "idle")
            this.setState("connecting");
        let request;
        try {
            request = await this.request();
        }
        catch (error) {
            // the request for a ticket carries the token itself: a 401 there is the token refused
            if (error instanceof UnauthorizedError)
                return this.fail(error);
            return this.dropped(generation, error);
        }
        if (generation !== this.generation)
            return;
        this.opens += 1;
        this.connection = this.carrier(request, {
            onOpen: () => {
                if (generation !== this.generation)
                    return;
                this.connects += 1;
                this.failures = 0;
                this.setState("open");
            },
            onMessage: (message) => {
                if (generation === this.generation)
                    this.deliver(this.accept(message), generation);
            },
            onInterrupted: () => {
                if (generation === this.generation)
                    this.setState("reconnecting");
            },
            onDrop: (error) => this.dropped(generation, error),
        });
    }
    /** Hand frames to the listeners, unless the connection they came on has been replaced meanwhile. */
    deliver(frames, generation = this.generation) {
        for (const frame of frames) {
            if (generation !== this.generation || this.state === "closed")
                return;
            for (const listener of this.listeners.frame)
                listener(frame);
        }
    }
    dropped(generation, error) {
        if (generation !== this.generation || this.state === "closed")
            return;
        this.connection = undefined;
        if (this.over())
            return this.close(); // the server ends the stream after its last events
        if (isFatal(error, this.native))
            return this.fail(error);
        if (error !== undefined)
            for (const listener of this.listeners.error)
                listener(error, true);
        this.setState("reconnecting");
        const retryAfter = error instanceof StelaError ? error.retryAfterMs : undefined;
        this.schedule(retryAfter ?? backoffMs(this.failures, this.policy));
        this.failures += 1;
    }
    schedule(ms) {
        clearTimeout(this.timer);
        const generation = ++this.generation;
        this.timer = setTimeout(() => {
            if (generation === this.generation)
                void this.connect();
        }, ms);
    }
    setState(state) {
        if (this.state === state)
            return;
        this.state = state;
        for (const listener of this.listeners.state)
            listener(state);
    }
    /** Frames as an async iterator (ends when the stream is closed; throws its fatal error). */
    async *[Symbol.asyncIterator]() {
        const queue = [];
        let wake;
        let failure;
        const offFrame = this.on("frame", (frame) => { queue.push(frame); wake?.(); });
        const offError = this.on("error", (error, willRetry) => { if (!willRetry)
            failure = { error }; wake?.(); });
        const offState = this.on("state", () => wake?.());
        try {
            for (;;) {
                while (queue.length)
                    yield queue.shift();
                if (failure)
                    throw failure.error;
                if (this.state === "closed")
                    return;
                await new Promise((resolve) => { wake = resolve; });
            }
        }
        finally {
            offFrame();
            offError();
            offState();
        }
    }
}
/**
 * A refusal another attempt cannot cure. A 401 on a stream opened with a ticket is not one (the
 * ticket expired: the next attempt asks for a new one, and that request fails for good if the
 * token itself is refused); with the token in a header it is.
 */
function isFatal(error, native) {
    if (error instanceof UnauthorizedError)
        return !native;
    return error instanceof InvalidRequestError || error instanceof ForbiddenError || error instanceof NotFoundError;
}
