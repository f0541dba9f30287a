/**
 * One HTTP exchange with the API, retried when that is safe. What is safe depends on the request:
 *
 * - `safe` (reads, stream tickets): retried on a network error, 429, 502, 503 and 504;
 * - `keyed` (a POST carrying an `Idempotency-Key`): the same, with the same key every time, so the
 *   server replays the first answer instead of acting twice; also 409 `too_much_contention`
 *   (nothing was appended). A 409 `version_conflict` or a rule violation is never retried;
 * - `unsafe` (registration, token rotation): retried only on 429, which refuses before acting.
 *
 * Every wait honours the server's `Retry-After`. Refusals become typed errors (`errors.ts`).
 */
import { errorFromProblem, NetworkError, problemFrom, StelaError } from "./errors.js";
import { Pacer, parseRateLimit, type RateLimit } from "./ratelimit.js";
import { DEFAULT_RETRY, delayMs, parseRetryAfter, sleep, type RetryPolicy } from "./retry.js";

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

const RETRYABLE_STATUS: Record<RetryClass, ReadonlySet<number>> = {
  safe: new Set([429, 502, 503, 504]),
  keyed: new Set([429, 502, 503, 504]),
  unsafe: new Set([429]),
};

export class Http {
  readonly baseUrl: string;
  token: string | undefined;
  readonly policy: RetryPolicy;
  private readonly fetcher: typeof fetch;
  private readonly onRetry: ((notice: RetryNotice) => void) | undefined;
  /** the last `RateLimit` fields an answer carried */
  rateLimit: RateLimit | undefined;
  /** set with `pace: true` */
  readonly pacer: Pacer | undefined;

  constructor(options: HttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    // bound: a bare `fetch` stored on an object and called as a method is an illegal invocation in browsers
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.onRetry = options.onRetry;
    this.pacer = options.pace ? new Pacer() : undefined;
  }

  /** The absolute URL of `path` with `query` (undefined and null values left out). */
  url(path: string, query?: RequestOptions["query"]): string {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** Headers every request carries: JSON, and the bearer token when there is one. */
  headers(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json", ...extra };
    if (this.token) headers["Authorization"] = `Bearer ${this.token}`;
    return headers;
  }

  /** Send the request, retrying as its class allows; resolves with the decoded 2xx body. */
  async request<T>(method: string, path: string, options: RequestOptions): Promise<Answer<T>> {
    const url = this.url(path, options.query);
    const headers = this.headers(options.headers);
    let body: string | undefined;
    if (options.form !== undefined) {
      const form = Object.entries(options.form).filter((e): e is [string, string] => e[1] !== undefined);
      body = new URLSearchParams(form).toString();
      headers["Content-Type"] = "application/x-www-form-urlencoded";
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      // a restart is waited out: retries go on until `minRetrySpanMs` after the first attempt
      const last = attempt + 1 >= this.policy.maxAttempts && Date.now() - started >= this.policy.minRetrySpanMs;
      const paced = this.pacer?.before(headers["Authorization"]) ?? 0;
      if (paced > 0) await sleep(paced, options.signal);
      let response: Response;
      try {
        response = await this.fetcher(url, { method, headers, body, signal: options.signal });
      } catch (cause) {
        if (options.signal?.aborted) throw cause;
        const error = new NetworkError(`${method} ${path}: no answer (${String(cause)})`, cause);
        if (options.retry === "unsafe" || last) throw error;
        await this.wait(method, path, attempt, undefined, "network error", options.signal);
        continue;
      }
      // only this answer's own fields teach the pacer: the last ones seen again would undo its count
      const limit = parseRateLimit(response.headers);
      this.rateLimit = limit ?? this.rateLimit;
      this.pacer?.told(limit, headers["Authorization"]);
      if (response.ok) {
        const text = await response.text();
        return { data: (options.text ? text : text ? JSON.parse(text) : undefined) as T, response };
      }
      const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
      const error = errorFromProblem(await problemFrom(response), retryAfter);
      // a 429 is bounded by its attempts alone (each waits the window out); only outages span the restart
      const spent = error.status === 429 ? attempt + 1 >= this.policy.maxAttempts : last;
      if (spent || !this.retryable(options.retry, error) ||
          (retryAfter !== undefined && retryAfter > this.policy.maxRetryAfterMs)) {
        throw error;
      }
      await this.wait(method, path, attempt, retryAfter, `${error.status} ${error.code}`, options.signal);
    }
  }

  private retryable(kind: RetryClass, error: StelaError): boolean {
    if (kind === "keyed" && error.code === "too_much_contention") return true;
    return RETRYABLE_STATUS[kind].has(error.status);
  }

  private async wait(method: string, path: string, attempt: number, retryAfter: number | undefined,
                     reason: string, signal?: AbortSignal): Promise<void> {
    const ms = delayMs(attempt, this.policy, retryAfter);
    this.onRetry?.({ method, path, attempt: attempt + 1, delayMs: ms, reason });
    await sleep(ms, signal);
  }
}

/** A fresh idempotency key (UUID v4 from `crypto.getRandomValues`, which also works outside secure contexts). */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
