/* Following live through the SDK's multiplexed stream (`GET /v1/stream`): a page holds ONE connection
   whatever it watches (a game, the personal notices), with a stream ticket when signed in (a seat's
   view) or none (a spectator's). The SDK resumes it after a drop or a server restart from the
   positions it holds, and delivers each event once, in order. */

import { client, explain } from "./api.js";
import { status } from "./dom.js";

/**
 * Call `onFrame(frame)` for every frame until the returned stop() is called. Frames are the multiplexed
 * stream's: {type: "snapshot", game_id, game}, {type: "event", game_id, event}, "turn", "ready", and with
 * `personal` the notices "game.state", "game.started", "game.your_turn", "game.ended". With `legal`, a "turn"
 * frame carries the viewer's view and, on its turn, the seat's legal commands.
 */
export function follow({ games = [], personal = false, legal = false }, onFrame) {
  const stream = client().follow({ games, personal, legal });
  stream.on("frame", (frame) => { try { onFrame(frame); } catch (err) { status(explain(err), true); } });
  stream.on("error", (err, willRetry) => { if (!willRetry) status(explain(err), true); });
  return { mode: "stream", stream, stop: () => stream.close() };
}
