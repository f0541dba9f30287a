/**
 * Typed errors: every refusal of the API is an RFC 9457 problem with a stable `code`, and
 * `errorFromProblem` turns it into the class for that code, so callers can `instanceof` or
 * switch on `code`. A request that never got an answer is a `NetworkError`.
 */
import type { components } from "./generated/openapi.js";
export type Problem = components["schemas"]["ProblemDetail"];
/** Any refusal by the API: `status` and the problem's stable `code`, `title` and `detail`. */
export declare class StelaError extends Error {
    readonly status: number;
    readonly code: string;
    readonly problem: Problem;
    /** milliseconds the server asked to wait (Retry-After), when it said */
    readonly retryAfterMs: number | undefined;
    constructor(problem: Problem, retryAfterMs?: number);
}
/** 400, 413, 415, 431: the request itself is malformed. */
export declare class InvalidRequestError extends StelaError {
}
/** 401: no, a bad, a revoked or a rotated token (or ticket). */
export declare class UnauthorizedError extends StelaError {
}
/** 403: authenticated but not allowed (`forbidden`, `not_seated`, `game_running`, `deal_sealed`). */
export declare class ForbiddenError extends StelaError {
}
/** 404: an unknown game, player, kind, version or seat. */
export declare class NotFoundError extends StelaError {
}
/** 409 with a rule's code (`<kind>.<name>`, `table.<name>`): the rules refuse the command. */
export declare class RuleViolationError extends StelaError {
}
/** 409 `version_conflict`: the game moved on; `currentVersion` is where it is now. Never retried. */
export declare class VersionConflictError extends StelaError {
    get currentVersion(): number | undefined;
}
/** 409 `conflict` or `too_much_contention` (the latter is retried with the same key first). */
export declare class ConflictError extends StelaError {
}
/** 422: options or a command the kind refuses (`invalid_command`, `<kind>.<option code>`). */
export declare class UnprocessableError extends StelaError {
}
/** 422 `idempotency_key_reused`: the key was first used for a different request. */
export declare class IdempotencyKeyReusedError extends UnprocessableError {
}
/** 429 `rate_limited`: thrown only once the retry budget is spent. */
export declare class RateLimitedError extends StelaError {
}
/** 503: the database or the service is unavailable (thrown once the retry budget is spent). */
export declare class UnavailableError extends StelaError {
}
/** The request got no HTTP answer (connection refused or reset, DNS, CORS refusal, abort). */
export declare class NetworkError extends Error {
    readonly cause: unknown;
    constructor(message: string, cause: unknown);
}
/** The typed error for a problem: by its `code` first, else by its status. */
export declare function errorFromProblem(problem: Problem, retryAfterMs?: number): StelaError;
/** A problem read from a refused response (a body that is not a problem is described as one). */
export declare function problemFrom(response: Response): Promise<Problem>;
