/* A game page: the board drawn from the caller's view, legal commands as clicks on it, the move list, live.

Layout (table.css part of style.css): the board in a pan-and-zoom window, beside it the tile in hand, the
players, the action bar, the move list in words and the full legal list (for keyboard and screen readers). */

import { get, me, client, explain } from "./api.js";
import { VersionConflictError } from "./sdk/index.js";
import { h, status } from "./dom.js";
import { follow } from "./live.js";
import { boardFor, loadBoard } from "./boards/index.js";
import { MoveLog, outcomeLine, howItEnded } from "./moves.js";
import { renderTable } from "./table.js";

/** Show game `id` in `root`; returns a function that stops following it. */
export async function showGame(root, id) {
  const page = { id, game: null, legal: null, selected: [], busy: false, stale: false, rotation: 0, handId: null, zoom: null, log: null };
  const player = me();
  const redraw = () => render(root, page, send, redraw);
  const refresh = async () => {
    if (page.busy) { page.stale = true; return; }
    page.busy = true;
    try {
      do {
        page.stale = false;
        page.game = await get(`/v1/games/${id}`);
        await loadBoard(page.game.kind);  // at once for a kind with its own drawer
        const seated = player && page.game.seats.some((s) => s.player_id === player.id);
        page.legal = seated && page.game.status === "active" ? await get(`/v1/games/${id}/legal`) : null;
        await readLog(page);
      } while (page.stale);
      const shown = `${page.game.version}/${page.game.status}/${page.legal ? page.legal.version : "-"}`;
      if (shown !== page.shown) {  // re-draw only on change: a selection survives polls and heartbeats
        page.shown = shown;
        redraw();  // and another seat's move, while it still leads to a legal command (the table drops it if not)
      }
    } catch (err) {
      status(explain(err), true);
    } finally {
      page.busy = false;
    }
  };
  const send = async (command) => {
    if (!page.legal || !page.legal.commands.some((c) => same(c, command))) return;  // only what the rules allow
    page.selected = [];  // the choice is made: whatever comes back, the next one starts afresh
    try {
      status("Sending…");
      const done = await client().command(id, command, { expectedVersion: page.legal.version, include: ["view", "legal"] });
      status("");
      if (done.view && done.legal && done.status === "active" && !page.busy) {  // one round trip per step
        page.game = { ...page.game, version: done.version, status: done.status, to_act: done.to_act, view: done.view };
        page.legal = Array.isArray(done.legal) ? { seat: page.legal.seat, version: done.version, commands: done.legal } : done.legal;
        page.shown = `${done.version}/${done.status}/${page.legal.version}`;
        await readLog(page).catch(() => {});
        redraw();
        return;
      }
    } catch (err) {
      status(err instanceof VersionConflictError ? "The game moved on; refreshed." : explain(err), true);
    }
    await refresh();
  };
  const onKey = (ev) => {  // R turns the tile in hand (not while typing)
    if ((ev.key === "r" || ev.key === "R") && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !/^(INPUT|SELECT|TEXTAREA)$/.test(ev.target.tagName)) {
      if (page.rotate && page.rotate(ev.shiftKey ? -1 : 1)) ev.preventDefault();
    }
  };
  document.addEventListener("keydown", onKey);
  await refresh();
  const live = follow({ games: [id] }, (frame) => {  // one connection (the multiplexed stream), resumed by the SDK
    if (frame.game_id !== id) return;
    if (frame.type === "snapshot" || (frame.type === "event" && (!page.game || frame.event.version > page.game.version))) refresh();
  });
  root.dataset.live = live.mode;
  return () => { live.stop(); document.removeEventListener("keydown", onKey); };
}

function same(a, b) {
  return JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());
}

/** Read the events not read yet into the move log; note the scores of the view shown. */
async function readLog(page) {
  if (!page.log) page.log = new MoveLog(page.id, (seat) => shortName(page.game, seat), mySeat(page.game));
  page.log.names = (seat) => shortName(page.game, seat);
  if (page.game.view) page.log.saw(page.game.version, page.game.view);
  await page.log.update();
}

function mySeat(game) {
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

function waiting(game, names) {
  return h("p", {}, `Waiting for players: ${game.seats.map((s) => (s.player_id ? names(s.seat) : `seat ${s.seat} free`)).join(", ")}. `,
    h("a", { href: "#/", text: "Join or start it from the lobby." }));
}
