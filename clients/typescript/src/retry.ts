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

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  minRetrySpanMs: 20_000,
};

/** Milliseconds a `Retry-After` header asks for (undefined when absent or unreadable). */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The back-off before attempt `attempt + 1` (0-based `attempt` just failed), full jitter. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/** The wait before retrying: at least the server's Retry-After, else the back-off. */
export function delayMs(attempt: number, policy: RetryPolicy, retryAfter: number | undefined,
                        random: () => number = Math.random): number {
  return retryAfter !== undefined ? retryAfter : backoffMs(attempt, policy, random);
}

/** Resolves after `ms`, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
