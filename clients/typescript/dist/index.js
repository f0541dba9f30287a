/** @stela/client: a typed client for the Stela board-game API (see README.md). */
export * from "./client.js";
export * from "./errors.js";
export { Http, newIdempotencyKey } from "./http.js";
export { authorizationRequest, codeFromRedirect, CONSENT_PAGE, OAuthDeniedError, queryOf, s256, StateMismatchError } from "./oauth.js";
export { Pacer, parseRateLimit } from "./ratelimit.js";
export { DEFAULT_RETRY, parseRetryAfter } from "./retry.js";
export { SseParser } from "./sse.js";
export { ResumableStream } from "./stream.js";
export { GameStream, LogStream, MultiStream, PersonalStream } from "./streams.js";
