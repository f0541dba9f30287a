/**
 * When and how long to wait before trying again. A server's `Retry-After` (seconds or an HTTP
 * date) is always honoured as a minimum; without one the delay is exponential with full jitter,
 * so many clients refused at once do not come back at once.
 */
export interface RetryPolicy {
    /** attempts in all, the first included (1 = never retry) */
    maxAttempts: number;
    /** first back-off step in milliseconds; it doubles each attempt */
    baseDelayMs: number;
    /** the longest back-off step without a Retry-After */
    maxDelayMs: number;
    /** a Retry-After longer than this is not waited for: the error is thrown at once */
    maxRetryAfterMs: number;
    /**
     * a retryable failure (no answer, 502/503/504) is retried until at least this long after the first
     * attempt, even once `maxAttempts` are spent: a server restart (a few seconds, up to 15 s for a
     * rolling one) is waited out instead of surfacing as a `NetworkError`
     */
    minRetrySpanMs: number;
}
export declare const DEFAULT_RETRY: RetryPolicy;
/** Milliseconds a `Retry-After` header asks for (undefined when absent or unreadable). */
export declare function parseRetryAfter(header: string | null, now?: number): number | undefined;
/** The back-off before attempt `attempt + 1` (0-based `attempt` just failed), full jitter. */
export declare function backoffMs(attempt: number, policy: RetryPolicy, random?: () => number): number;
/** The wait before retrying: at least the server's Retry-After, else the back-off. */
export declare function delayMs(attempt: number, policy: RetryPolicy, retryAfter: number | undefined, random?: () => number): number;
/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export declare function sleep(ms: number, signal?: AbortSignal): Promise<void>;
