/* A game page: the board drawn from the caller's view, legal commands as clicks on it, the move list, live.

Layout (table.css part of style.css): the board in a pan-and-zoom window, beside it the tile in hand, the
players, the action bar, the move list in words and the full legal list (for keyboard and screen readers). */

import { get, me, client, explain } from "./api.js";
import { VersionConflictError } from "./sdk/index.js";
import { h, status } from "./dom.js";
import { follow } from "./live.js";
import { boardFor, loadBoard } from "./boards/index.js";
import { MoveLog, outcomeLine, howItEnded } from "./moves.js";
import { renderTable, NARROW } from "./table.js";

/** Show game `id` in `root`; returns a function that stops following it.

    The page lives on the multiplexed stream (`legal=true`): its snapshot is the one full read of the game
    (on load, and again only if the stream ever starts over with one), its events feed the move list and the
    seats, and its `turn` frames bring the view, who is to act and the seat's legal commands after every
    batch. A command's answer brings the next view and legal commands at once. A full read of the game is
    made only when a frame says the page is behind (a `turn` without a view). */
export async function showGame(root, id) {
  const page = { id, game: null, legal: null, selected: [], rotation: 0, handId: null, zoom: null, log: null, settled: 0 };
  const redraw = () => render(root, page, send, redraw);
  const show = () => {  // re-draw only on change: a selection survives heartbeats and repeated frames
    const shown = `${page.game.version}/${page.game.status}/${page.legal ? page.legal.version : "-"}/${page.log ? page.log.lines.length : 0}`;
    if (shown !== page.shown) { page.shown = shown; redraw(); }
  };
  const full = async () => {  // the whole game, read once: the page was behind
    const game = await get(`/v1/games/${id}`);
    await take(game);
  };
  const take = async (game) => {  // a full view (the snapshot, or a read)
    await loadBoard(game.kind);  // at once for a kind with its own drawer
    page.game = game;
    page.legal = null;  // until the `turn` frame that follows it
    page.settled = Math.max(page.settled, game.version);
    if (!page.log) {
      page.log = new MoveLog(id, (seat) => shortName(page.game, seat), mySeat(page.game));
      await page.log.update();  // the game so far; the stream brings the rest
    }
    page.log.saw(game.version, game.view);
  };
  const onFrame = async (frame) => {
    if (frame.game_id !== id) return;
    if (frame.type === "snapshot") { await take(frame.game); show(); return; }
    if (!page.game) return;
    if (frame.type === "event") { onEvent(page, frame.event); return; }
    if (frame.type !== "turn" || frame.version < page.game.version) return;
    if (frame.view === undefined) { await full(); return; }  // a stream that does not carry views: read it all
    page.game = { ...page.game, version: frame.version, status: frame.status, to_act: frame.to_act, view: frame.view,
      your_seat: frame.your_seat };
    page.legal = frame.your_turn && frame.commands ? { seat: frame.your_seat, version: frame.version, commands: frame.commands } : null;
    page.log.settle(page.settled, frame.version, frame.view);
    page.settled = frame.version;
    if (page.game.status === "finished" && !page.game.outcome) await full();  // the end, without its event seen
    show();
  };
  let queue = Promise.resolve();  // frames are handled one after the other, in order
  const send = async (command) => {
    if (!page.legal || !page.legal.commands.some((c) => same(c, command))) return;  // only what the rules allow
    page.selected = [];  // the choice is made: whatever comes back, the next one starts afresh
    if (page.sending) {  // the stream showed the next turn before the last command's answer came: sent after it
      page.queued = command;
      return;
    }
    page.sending = true;
    try {
      status("Sending…");
      const done = await client().command(id, command, { expectedVersion: page.legal.version, include: ["view", "legal"] });
      status("");
      if (done.view && done.legal && done.version > page.game.version) {  // the next step at once, no read
        page.game = { ...page.game, version: done.version, status: done.status, to_act: done.to_act, view: done.view };
        page.legal = Array.isArray(done.legal) ? { seat: page.legal.seat, version: done.version, commands: done.legal } : done.legal;
        if (!page.legal.commands.length) page.legal = null;
        page.log.saw(done.version, done.view);
        show();
      }
    } catch (err) {
      status(err instanceof VersionConflictError ? "The game moved on." : explain(err), true);
    } finally {
      page.sending = false;
    }
    const queued = page.queued;
    page.queued = null;
    if (queued && page.legal && page.legal.commands.some((c) => same(c, queued))) await send(queued);
    else if (queued) status("The game moved on.", true);
  };
  const onKey = (ev) => {  // R turns the tile in hand (not while typing)
    if ((ev.key === "r" || ev.key === "R") && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !/^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) {
      if (page.rotate && page.rotate(ev.shiftKey ? -1 : 1)) ev.preventDefault();
    }
  };
  document.addEventListener("keydown", onKey);
  const resized = () => { if (page.game) redraw(); };  // a board drawn for a phone's width, or a desk's
  NARROW.addEventListener("change", resized);
  const live = follow({ games: [id], legal: true }, (frame) => {  // one connection, resumed by the SDK
    queue = queue.then(() => onFrame(frame)).catch((err) => status(explain(err), true));
  });
  root.dataset.live = live.mode;
  return () => { live.stop(); document.removeEventListener("keydown", onKey); NARROW.removeEventListener("change", resized); };
}

/** An event of the game: a line of the move list; a seat taken or the end noted on the game shown. */
function onEvent(page, event) {
  const d = event.data || {};
  const game = page.game;
  if (event.type === "table.SeatTaken") {
    const seat = { seat: d.seat, player_id: d.player_id ?? null, name: d.name ?? null };
    page.game = { ...game, seats: game.seats.some((s) => s.seat === d.seat)
      ? game.seats.map((s) => (s.seat === d.seat ? { ...s, ...seat } : s)) : [...game.seats, seat] };
  } else if (event.type === "table.GameEnded" && d.outcome) {
    page.game = { ...game, outcome: d.outcome };
  }
  page.log.add(event);
}

function same(a, b) {
  return JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());
}

function mySeat(game) {
  if (Number.isInteger(game.your_seat)) return game.your_seat;
  const player = me();
  const seat = player && game.seats.find((s) => s.player_id === player.id);
  return seat ? seat.seat : null;
}

export function seatName(game, seat) {
  const s = game.seats.find((x) => x.seat === seat);
  return s && s.name ? `${s.name} (seat ${seat})` : `seat ${seat}`;
}

/** A seat's player name alone (the move list's), else "seat N". */
export function shortName(game, seat) {
  const s = game.seats.find((x) => x.seat === seat);
  return s && s.name ? s.name : `seat ${seat}`;
}

function statusWord(game) {
  return game.status;
}

function header(game, legal, names, log) {
  const commands = legal ? legal.commands : [];
  const mine = mySeat(game);
  const over = game.status === "finished" || game.status === "aborted";
  const turn = over ? null : game.status === "active"
    ? (commands.length ? h("strong", { class: "your-turn", text: "Your turn." }) : h("span", { class: "waiting", text: `${game.to_act.map(names).join(", ") || "Nobody"} to act.` }))
    : null;
  const last = game.view && game.view.last;
  return h("section", { class: "info", "aria-label": "game" },
    h("h1", { text: `${game.kind} · ${statusWord(game)}` }),
    h("p", {},
      `Version ${game.version}. `,
      game.status === "active" ? `To act: ${game.to_act.map(names).join(", ") || "nobody"}. ` : "",
      mine !== null ? `You are ${names(mine)}. ` : "You are watching. ", turn),
    over ? h("div", { class: "outcome", role: "note" },
      h("p", { class: "result", text: game.outcome ? `Final: ${outcomeLine(game.outcome, names)}.` : "No result." }),
      h("p", { class: "how", text: howItEnded(game, names, log ? log.lines : []) }),
      h("p", {}, h("a", { href: `#/replay/${game.id}`, text: "Replay and verify this game" }))) : null,
    last && last.text ? h("p", { class: "last-move" }, h("span", { class: "tag", text: "Last move" }),
      ` ${last.seat === null || last.seat === undefined ? "" : `${names(last.seat)} `}${last.text}`) : null);
}

function render(root, page, send, redraw) {
  const { game } = page;
  const names = (seat) => seatName(game, seat);
  if (!game.view) { root.replaceChildren(h("h1", { text: `${game.kind} · ${game.status}` }), waiting(game, names)); return; }
  const focused = document.activeElement;
  const keep = focused && focused !== root && root.contains(focused) ? (focused.dataset.key || "") : null;
  const byKeyboard = keep !== null && focused.matches(":focus-visible");
  const scroll = root.querySelector(".viewport");
  const at = scroll ? [scroll.scrollLeft, scroll.scrollTop] : null;
  const table = renderTable(page, { board: boardFor(game.kind), names, send, redraw, seat: page.legal ? page.legal.seat : mySeat(game) });
  root.replaceChildren(header(game, page.legal, names, page.log), table.element, table.summary);
  const win = root.querySelector(".viewport");
  if (win && at) { win.scrollLeft = at[0]; win.scrollTop = at[1]; }
  const list = root.querySelector(".move-list");
  if (list) list.scrollTop = list.scrollHeight;
  if (keep !== null) refocus(root, keep, byKeyboard);
  if (page.log) {
    page.log.fillScores(() => {
      const old = root.querySelector(".moves .move-list");
      if (!old) return;
      const fresh = page.log.element();
      old.replaceWith(fresh);
      fresh.scrollTop = fresh.scrollHeight;
    });
  }
}

/* A keyboard player keeps their place across re-draws: the same board part if it is offered again, else the
   first part offered, else the first legal command, else the page (scrolled to only for keyboard users). */
function refocus(root, key, scroll) {
  const same = key && [...root.querySelectorAll(".table [data-key].target")].find((el) => el.dataset.key === key);
  const next = same || root.querySelector("svg.board [data-key].target") || root.querySelector(".table [data-key].target") || root.querySelector("ol.commands button") || root;
  next.focus({ preventScroll: !scroll });
}

/** An open game: who sits, and what it waits for (a free seat, or its start: a bot starts its own within seconds). */
function waiting(game, names) {
  const free = game.seats.some((s) => !s.player_id);
  return h("p", {}, `Waiting for players: ${game.seats.map((s) => (s.player_id ? names(s.seat) : `seat ${s.seat} free`)).join(", ")}. `,
    free ? h("a", { href: "#/", text: "Join or start it from the lobby." })
      : h("span", { text: "Every seat is taken: it starts as soon as a seat starts it (a bot does within seconds)." }));
}
