/* The public API through the TypeScript SDK (clients/typescript, served at /sdk/): the signed-in player's
   client with the bearer token kept in localStorage. The SDK retries reads and keyed commands (the same
   Idempotency-Key on every attempt), backs off on 429/503 honouring Retry-After, throws typed errors by
   problem `code` and keeps streams resumed. */

import { StelaClient, StelaError, errorFromProblem, problemFrom } from "./sdk/index.js";

export { StelaError as ApiError };

const KEY = "stela.player";
let current = null;  // the client of the token stored now

/** The registered player {id, name, token}, or null. */
export function me() {
  try { return JSON.parse(localStorage.getItem(KEY)); } catch { return null; }
}

export function forget() { localStorage.removeItem(KEY); }

/** The SDK client acting for the stored player (anonymous, a spectator, without one). */
export function client() {
  const token = me()?.token;
  if (!current || current.token !== token) current = new StelaClient({ baseUrl: location.origin, token });
  return current;
}

/** What the status bar says about a failure: a problem's detail, as the API wrote it. */
export function explain(err) {
  return err instanceof StelaError ? err.problem.detail || err.problem.title || err.message : err.message || String(err);
}

/** A read, retried on network errors, 429 and 503; `raw`: the body as text (an export is JSON lines). */
export async function get(path, { raw = false } = {}) {
  if (!raw) return (await client().http.request("GET", path, { retry: "safe" })).data;
  const http = client().http;
  const resp = await fetch(http.url(path), { headers: http.headers() });
  if (!resp.ok) throw errorFromProblem(await problemFrom(resp));
  return resp.text();
}

/** A request the SDK has no operation for; retried only when refused before acting (429). */
export async function call(method, path, body) {
  return (await client().http.request(method, path, { body, retry: "unsafe" })).data ?? null;
}

export const post = (path, body) => call("POST", path, body ?? {});

function keep(player) {
  localStorage.setItem(KEY, JSON.stringify(player));
}

/** Register: the SDK's registration; the token is shown only this once, so it is kept here. */
export async function register(name) {
  const { player } = await StelaClient.register(location.origin, name);
  keep({ id: player.id, name: player.name, token: player.token });
  return player;
}

/** Sign in with a token (a session's, or one kept elsewhere): checked by the SDK, then kept. */
export async function signInWithToken(token) {
  const { me: who } = await StelaClient.signIn(location.origin, token);
  keep({ id: who.id, name: who.name, token });
  return who;
}
