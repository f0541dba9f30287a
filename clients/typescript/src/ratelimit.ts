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

function members(value: string | null): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const member of (value ?? "").split(",")) {
    const [name, ...params] = member.split(";").map((part) => part.trim());
    if (!name) continue;
    out.set(name.replace(/^"|"$/g, ""), Object.fromEntries(params.filter((p) => p.includes("="))
      .map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)])));
  }
  return out;
}

function numberOf(value: string | undefined): number | undefined {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** The fields of an answer's headers (undefined when it has no `RateLimit` field). */
export function parseRateLimit(headers: Headers): RateLimit | undefined {
  const state = members(headers.get("RateLimit"));
  const first = state.entries().next();
  if (first.done) return undefined;
  const [policy, params] = first.value;
  const declared = members(headers.get("RateLimit-Policy")).get(policy) ?? {};
  return { policy, remaining: numberOf(params["r"]), resetSeconds: numberOf(params["t"]),
           quota: numberOf(declared["q"]), windowSeconds: numberOf(declared["w"]) };
}

/** Waits before a request once the known budget is spent, until its window ends. */
export class Pacer {
  remaining: number | undefined;
  resetsAt = 0;
  /** milliseconds spent waiting, in all */
  waitedMs = 0;
  /** the credential whose budget `remaining` counts (undefined: anonymous) */
  private holder: string | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds to wait before the next request, sent with `credential` (and counted against what is left). */
  before(credential?: string): number {
    const now = this.now();
    if (credential !== this.holder) {
      this.holder = credential;  // another budget: nothing known of it until an answer says
      this.remaining = undefined;
    }
    if (now >= this.resetsAt) this.remaining = undefined;
    if (this.remaining === undefined) return 0;
    if (this.remaining > 0) {
      this.remaining -= 1;
      return 0;
    }
    const wait = this.resetsAt - now;
    this.waitedMs += wait;
    this.remaining = undefined;
    return wait;
  }

  /** Learn from an answer to a request sent with `credential`: its own fields, undefined when it had none
   *  (the count then stays as `before` left it). The `api` budget paces requests; stream openings have
   *  their own. */
  told(limit: RateLimit | undefined, credential?: string): void {
    if (credential !== this.holder) return;  // an answer about a budget no longer spent
    if (!limit || limit.remaining === undefined || limit.resetSeconds === undefined || limit.policy === "streams") return;
    this.remaining = limit.remaining;
    this.resetsAt = this.now() + limit.resetSeconds * 1000;
  }
}
