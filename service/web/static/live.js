/* Following a game live: EventSource with a stream ticket (seat) or without (spectator). */

import { post, ApiError } from "./api.js";

/**
 * Call `onFrame(frame)` for every frame of the game's stream until the returned stop() is called.
 * A frame is {type: "snapshot", game} or an event {version, type, data, at}.
 */
export async function follow(gameId, seated, onFrame) {
  let ticket = null;
  try {
    ticket = seated ? await post(`/v1/games/${gameId}/stream-tickets`, {}) : null;
    if (!seated) await probeTickets(gameId);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405)) return poll(onFrame);
    if (!(err instanceof ApiError && (err.status === 401 || err.status === 403))) throw err;
  }
  const query = ticket ? `ticket=${encodeURIComponent(ticket.ticket)}&frames=message` : "frames=message";
  const source = new EventSource(`/v1/games/${gameId}/stream?${query}`);
  const handle = (msg) => {
    try { onFrame(JSON.parse(msg.data)); } catch { /* a heartbeat or a foreign frame */ }
  };
  source.onmessage = handle;
  source.addEventListener("snapshot", handle);
  return { mode: "stream", stop: () => source.close() };
}

async function probeTickets(gameId) {
  try {
    await post(`/v1/games/${gameId}/stream-tickets`, {});
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403 || err.status === 409)) return;
    throw err;
  }
}

/* --- FALLBACK while the server has no stream tickets: poll the game every second. --- */
function poll(onFrame) {
  const timer = setInterval(() => onFrame({ type: "poll" }), 1000);
  return { mode: "poll", stop: () => clearInterval(timer) };
}
/* --- end of FALLBACK --- */
