/**
 * When and how long to wait before trying again. A server's `Retry-After` (seconds or an HTTP
 * date) is always honoured as a minimum; without one the delay is exponential with full jitter,
 * so many clients refused at once do not come back at once.
 */
export const DEFAULT_RETRY = {
    maxAttempts: 8,
    baseDelayMs: 250,
    maxDelayMs: 8_000,
    maxRetryAfterMs: 60_000,
    minRetrySpanMs: 20_000,
};
/** Milliseconds a `Retry-After` header asks for (undefined when absent or unreadable). */
export function parseRetryAfter(header, now = Date.now()) {
    if (header === null || header.trim() === "")
        return undefined;
    const value = header.trim();
    if (/^\d+(\.\d+)?$/.test(value))
        return Math.round(Number(value) * 1000);
    const at = Date.parse(value);
    return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
/** The back-off before attempt `attempt + 1` (0-based `attempt` just failed), full jitter. */
export function backoffMs(attempt, policy, random = Math.random) {
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    return Math.round(random() * ceiling);
}
/** The wait before retrying: at least the server's Retry-After, else the back-off. */
export function delayMs(attempt, policy, retryAfter, random = Math.random) {
    return retryAfter !== undefined ? retryAfter : backoffMs(attempt, policy, random);
}
/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
        const timer = setTimeout(() => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
        }, ms);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
    });
}
