/**
 * The server's `RateLimit` and `RateLimit-Policy` fields (IETF draft-ietf-httpapi-ratelimit-headers), and
 * opt-in pacing. Every answer of a rate-limited request says where its budget stands:
 * `RateLimit-Policy: "api";q=600;w=60` (its quota per window of seconds) and `RateLimit: "api";r=599;t=42`
 * (what is left in this window, and the seconds until it ends). `client.rateLimit` holds the last one seen.
 *
 * With `pace: true` the client spends the budget it was told about: each request takes one from what is
 * left, and once nothing is left the next request waits until the window ends instead of meeting 429.
 * It only knows what answers said (other clients of the same token share the budget), so a 429 can still
 * happen and is then waited out as before.
 */
export interface RateLimit {
    /** the budget: `api`, `streams` (stream openings), `credentials` */
    policy: string;
    remaining: number | undefined;
    /** seconds until the window ends */
    resetSeconds: number | undefined;
    quota: number | undefined;
    windowSeconds: number | undefined;
}
/** The fields of an answer's headers (undefined when it has no `RateLimit` field). */
export declare function parseRateLimit(headers: Headers): RateLimit | undefined;
/** Waits before a request once the known budget is spent, until its window ends. */
export declare class Pacer {
    private readonly now;
    remaining: number | undefined;
    resetsAt: number;
    /** milliseconds spent waiting, in all */
    waitedMs: number;
    constructor(now?: () => number);
    /** Milliseconds to wait before the next request (which is counted against what is left). */
    before(): number;
    /** Learn from an answer (the `api` budget paces requests; stream openings have their own). */
    told(limit: RateLimit | undefined): void;
}
