/** Any refusal by the API: `status` and the problem's stable `code`, `title` and `detail`. */
export class StelaError extends Error {
    status;
    code;
    problem;
    /** milliseconds the server asked to wait (Retry-After), when it said */
    retryAfterMs;
    constructor(problem, retryAfterMs) {
        super(`${problem.status} ${problem.code}: ${problem.detail}`);
        this.name = new.target.name;
        this.status = problem.status;
        this.code = problem.code;
        this.problem = problem;
        this.retryAfterMs = retryAfterMs;
    }
}
/** 400, 413, 415, 431: the request itself is malformed. */
export class InvalidRequestError extends StelaError {
}
/** 401: no, a bad, a revoked or a rotated token (or ticket). */
export class UnauthorizedError extends StelaError {
}
/** 403: authenticated but not allowed (`forbidden`, `not_seated`, `game_running`, `deal_sealed`). */
export class ForbiddenError extends StelaError {
}
/** 404: an unknown game, player, kind, version or seat. */
export class NotFoundError extends StelaError {
}
/** 409 with a rule's code (`<kind>.<name>`, `table.<name>`): the rules refuse the command. */
export class RuleViolationError extends StelaError {
}
/** 409 `version_conflict`: the game moved on; `currentVersion` is where it is now. Never retried. */
export class VersionConflictError extends StelaError {
    get currentVersion() {
        return this.problem.current_version ?? undefined;
    }
}
/** 409 `conflict` or `too_much_contention` (the latter is retried with the same key first). */
export class ConflictError extends StelaError {
}
/** 422: options or a command the kind refuses (`invalid_command`, `<kind>.<option code>`). */
export class UnprocessableError extends StelaError {
}
/** 422 `idempotency_key_reused`: the key was first used for a different request. */
export class IdempotencyKeyReusedError extends UnprocessableError {
}
/** 429 `rate_limited`: thrown only once the retry budget is spent. */
export class RateLimitedError extends StelaError {
}
/** 503: the database or the service is unavailable (thrown once the retry budget is spent). */
export class UnavailableError extends StelaError {
}
/** The request got no HTTP answer (connection refused or reset, DNS, CORS refusal, abort). */
export class NetworkError extends Error {
    cause;
    constructor(message, cause) {
        super(message);
        this.name = "NetworkError";
        this.cause = cause;
    }
}
const BY_CODE = {
    version_conflict: VersionConflictError,
    conflict: ConflictError,
    too_much_contention: ConflictError,
    idempotency_key_reused: IdempotencyKeyReusedError,
};
const BY_STATUS = {
    400: InvalidRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: RuleViolationError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: UnprocessableError,
    429: RateLimitedError,
    431: InvalidRequestError,
    503: UnavailableError,
};
/** The typed error for a problem: by its `code` first, else by its status. */
export function errorFromProblem(problem, retryAfterMs) {
    const Class = BY_CODE[problem.code] ?? BY_STATUS[problem.status] ?? StelaError;
    return new Class(problem, retryAfterMs);
}
/** A problem read from a refused response (a body that is not a problem is described as one). */
export async function problemFrom(response) {
    const text = await response.text().catch(() => "");
    try {
        const body = JSON.parse(text);
        if (typeof body.code === "string" && typeof body.status === "number")
            return body;
        if (typeof body.error === "string") {
            // the OAuth token and revocation endpoints answer RFC 6749 5.2 JSON: its `error` is the code
            return { type: "about:blank", title: body.error, status: response.status, code: body.error,
                detail: typeof body.error_description === "string" ? body.error_description : body.error };
        }
    }
    catch {
        // not JSON: described below
    }
    return {
        type: "about:blank",
        title: response.statusText || "Error",
        status: response.status,
        code: `http_${response.status}`,
        detail: text.slice(0, 200) || response.statusText || "no problem detail in the response",
    };
}
