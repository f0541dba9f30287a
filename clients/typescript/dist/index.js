/** @stela/client: a typed client for the Stela board-game API (see README.md). */
export * from "./client.js";
export * from "./errors.js";
export { Http, newIdempotencyKey } from "./http.js";
export { DEFAULT_RETRY, parseRetryAfter } from "./retry.js";
export { SseParser } from "./sse.js";
export { ResumableStream } from "./stream.js";
export { GameStream, MultiStream, PersonalStream } from "./streams.js";
