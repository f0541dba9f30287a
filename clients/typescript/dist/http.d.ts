import { Pacer, type RateLimit } from "./ratelimit.js";
import { type RetryPolicy } from "./retry.js";
export type RetryClass = "safe" | "keyed" | "unsafe";
export interface RetryNotice {
    method: string;
    path: string;
    attempt: number;
    delayMs: number;
    reason: string;
}
export interface HttpOptions {
    baseUrl: string;
    token?: string | undefined;
    fetch?: typeof fetch | undefined;
    retry?: Partial<RetryPolicy> | undefined;
    /** told before each wait (for logs and tests) */
    onRetry?: ((notice: RetryNotice) => void) | undefined;
    /** wait for the rate-limit window instead of meeting 429 once the known budget is spent (`ratelimit.ts`) */
    pace?: boolean | undefined;
}
export interface RequestOptions {
    query?: Record<string, string | number | boolean | null | undefined> | undefined;
    body?: unknown;
    /** a form-encoded body instead (the OAuth token and revocation endpoints) */
    form?: Record<string, string | undefined> | undefined;
    /** the answer's text, not parsed (SVG, CSV, NDJSON) */
    text?: boolean | undefined;
    headers?: Record<string, string> | undefined;
    retry: RetryClass;
    signal?: AbortSignal | undefined;
}
export interface Answer<T> {
    data: T;
    response: Response;
}
export declare class Http {
    readonly baseUrl: string;
    token: string | undefined;
    readonly policy: RetryPolicy;
    private readonly fetcher;
    private readonly onRetry;
    /** the last `RateLimit` fields an answer carried */
    rateLimit: RateLimit | undefined;
    /** set with `pace: true` */
    readonly pacer: Pacer | undefined;
    constructor(options: HttpOptions);
    /** The absolute URL of `path` with `query` (undefined and null values left out). */
    url(path: string, query?: RequestOptions["query"]): string;
    /** Headers every request carries: JSON, and the bearer token when there is one. */
    headers(extra?: Record<string, string>): Record<string, string>;
    /** Send the request, retrying as its class allows; resolves with the decoded 2xx body. */
    request<T>(method: string, path: string, options: RequestOptions): Promise<Answer<T>>;
    private retryable;
    private wait;
}
/** A fresh idempotency key (UUID v4 from `crypto.getRandomValues`, which also works outside secure contexts). */
export declare function newIdempotencyKey(): string;
