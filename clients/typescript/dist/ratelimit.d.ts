/**
 * The server's `RateLimit` and `RateLimit-Policy` fields (IETF draft-ietf-httpapi-ratelimit-headers), and
 * opt-in pacing. Every answer of a rate-limited request says where its budget stands:
 * `RateLimit-Policy: "api";q=600;w=60` (its quota per window of seconds) and `RateLimit: "api";r=599;t=42`
 * (what is left in this window, and the seconds until it ends). `client.rateLimit` holds the last one seen.
 *
 * With `pace: true` the client spends the budget it was told about: each request takes one from what is
 * left, and once nothing is left the next request waits until the window ends instead of meeting 429.
 * Only an answer carrying the fields corrects the count: after one without them (a route or server that
 * does not send them, an error answered before the limiter) the count goes on down from what was known,
 * as if that request was spent. The count belongs to the credential (`Authorization`) its answers came
 * to: a request with another one (the token a registration or sign-in gave, a rotated token) starts
 * unknown, since the anonymous per-address budget, or another player's, says nothing of this one's.
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
    /** the credential whose budget `remaining` counts (undefined: anonymous) */
    private holder;
    constructor(now?: () => number);
    /** Milliseconds to wait before the next request, sent with `credential` (and counted against what is left). */
    before(credential?: string): number;
    /** Learn from an answer to a request sent with `credential`: its own fields, undefined when it had none
     *  (the count then stays as `before` left it). The `api` budget paces requests; stream openings have
     *  their own. */
    told(limit: RateLimit | undefined, credential?: string): void;
}
