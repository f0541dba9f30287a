/* The public API, and nothing else: fetch with the bearer token kept in localStorage. */

const KEY = "stela.player";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code;
    this.problem = problem;
  }
}

/** The registered player {id, name, token}, or null. */
export function me() {
  try { return JSON.parse(localStorage.getItem(KEY)); } catch { return null; }
}

export function forget() { localStorage.removeItem(KEY); }

/** Call the API; JSON in and out; throws ApiError with the problem's `code`. */
export async function call(method, path, body, { raw = false } = {}) {
  const headers = {};
  const player = me();
  if (player) headers.Authorization = `Bearer ${player.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!resp.ok) {
    let problem = {};
    try { problem = await resp.json(); } catch { /* not JSON */ }
    throw new ApiError(resp.status, problem);
  }
  if (raw) return resp.text();
  return resp.status === 204 ? null : resp.json();
}

export const get = (path, opts) => call("GET", path, undefined, opts);
export const post = (path, body) => call("POST", path, body ?? {});

export async function register(name) {
  const player = await post("/v1/players", { name });
  localStorage.setItem(KEY, JSON.stringify({ id: player.id, name: player.name, token: player.token }));
  return player;
}
