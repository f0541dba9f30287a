/* Following a game live: EventSource with a stream ticket (a seat) or without (a spectator). */

import { post } from "./api.js";

/**
 * Call `onFrame(frame)` for every frame of the game's stream until the returned stop() is called.
 * A frame is {type: "snapshot", game} or an event {version, type, data, at}; the browser reconnects
 * by itself with Last-Event-ID (a ticket stays valid long enough for that).
 */
export async function follow(gameId, seated, onFrame) {
  const ticket = seated ? await post(`/v1/games/${gameId}/stream-tickets`, {}) : null;
  const query = ticket ? `ticket=${encodeURIComponent(ticket.ticket)}&frames=message` : "frames=message";
  const source = new EventSource(`/v1/games/${gameId}/stream?${query}`);
  source.onmessage = (msg) => {
    try { onFrame(JSON.parse(msg.data)); } catch { /* not a game frame */ }
  };
  return { mode: "stream", stop: () => source.close() };
}

