/** @stela/client: a typed client for the Stela board-game API (see README.md). */
export * from "./client.js";
export * from "./errors.js";
export { Http, newIdempotencyKey, type RetryClass, type RetryNotice } from "./http.js";
export { authorizationRequest, codeFromRedirect, CONSENT_PAGE, OAuthDeniedError, queryOf, s256, StateMismatchError,
         type AuthorizationRequest } from "./oauth.js";
export { Pacer, parseRateLimit, type RateLimit } from "./ratelimit.js";
export { DEFAULT_RETRY, parseRetryAfter, type RetryPolicy } from "./retry.js";
export { SseParser, type SseMessage } from "./sse.js";
export { ResumableStream, type StreamHandlers, type StreamOptions, type StreamState } from "./stream.js";
export { GameStream, LogStream, MultiStream, PersonalStream, type LogEvent, type LogFrame, type MultiStreamOptions } from "./streams.js";
export type * from "./types.js";
