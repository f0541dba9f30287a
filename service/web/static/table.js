/* The table of a game page: the board in its pan-and-zoom window, the tile in hand (turned by a button, the R key
or the mouse wheel, with a ghost on every spot it may go), the players, a compact action bar, the move list and
the full legal list. Every click sends only a command from `legal`.

Clicks: each board names its clickable parts by a key (data-key); each command maps to a path of keys (select a
piece, then a target; plain actions are buttons of the action bar). A click extends the selection; one full
match is sent, several are offered as a short choice in words. */

import { h, s, SEAT_COLOURS } from "./dom.js";
import { commandWords } from "./words.js";
import { clickPath } from "./boards/index.js";
import { viewport } from "./viewport.js";

/** A phone's width: a board may draw itself as one narrow column (`ui.narrow`). */
export const NARROW = window.matchMedia("(max-width: 600px)");

/** Is `c` the placing of the tile in hand (a rotation to choose)? */
const placing = (c) => /\.PlaceTile$/.test(c.type) && Number.isInteger(c.rotation);

/** Build the table for `page` ({game, legal, rotation, ...}); ctx {board, names, send, redraw, seat}. */
export function renderTable(page, ctx) {
  const { game, legal } = page;
  const { board, names, send, redraw, seat } = ctx;
  const commands = legal ? legal.commands : [];
  const place = commands.filter(placing);
  const turns = board.ROTATIONS || 1;
  const hand = board.handTile && game.status === "active" ? board.handTile(game.view) : null;
  page.rotate = null;
  if (place.length) {
    const id = hand ? hand.id : "tile";
    if (page.handId !== id) {  // a new tile: start at its first rotation that fits somewhere
      page.handId = id;
      page.rotation = Math.min(...place.map((c) => c.rotation));
    }
    page.rotate = (dir = 1) => { page.rotation = (page.rotation + dir + turns) % turns; page.selected = []; redraw(); return true; };
  }
  const ui = { names, seats: game.seats.length, commands, seat, rotation: page.rotation, last: page.log ? page.log.lastMove() : null,
    status: game.status, narrow: NARROW.matches };
  const drawn = board.draw(game.view, ui);
  const paths = commands.map((c) => ({ command: c, keys: clickPath(game.kind, c, { view: game.view, seat }) }));
  const clickable = paths.filter((p) => p.keys);
  const frame = viewport(drawn.svg, page, (ev) => (page.rotate && !ev.ctrlKey ? wheelTurn(page, ev) : false));
  const side = h("aside", { class: "side", "aria-label": "players and moves" },
    place.length ? handPanel(page, hand, place, turns) : hand ? shownTile(hand, game, names) : null,
    actionBar(clickable),
    ...(board.panels ? board.panels(game.view, ui) : []),
    players(game, names, board),
    movesPanel(page),
    legalList(paths, send));
  const element = h("div", { class: "table" }, h("div", { class: "board-pane" }, boardBar(board, game.view, ui), frame), side);
  wireClicks(element, page, clickable, send);
  element.addEventListener("click", (ev) => {  // a spot that fits only another rotation: turn the tile to it
    const spot = ev.target.closest("[data-turn-to]");
    if (spot && !spot.closest("[data-key].target")) { page.rotation = Number(spot.dataset.turnTo); page.selected = []; redraw(); }
  });
  const summary = h("details", { class: "summary", open: true }, h("summary", { text: "Board in words" }),
    h("div", { class: "board-text" }, ...drawn.summary.map((line) => h("p", { text: line }))));
  return { element, summary };
}

/** The wheel turns the tile one step per notch (a trackpad's stream of small deltas adds up to a notch, and
    a turn waits 120 ms after the last one); true: the wheel is taken. */
function wheelTurn(page, ev) {
  const now = performance.now();
  page.wheel = (page.wheelAt && now - page.wheelAt > 400 ? 0 : page.wheel || 0) + ev.deltaY;
  page.wheelAt = now;
  if (Math.abs(page.wheel) < 50 || now - (page.turnedAt || 0) < 120) return true;
  const dir = page.wheel > 0 ? 1 : -1;
  page.wheel = 0;
  page.turnedAt = now;
  page.rotate(dir);
  return true;
}

/** The tile in hand of the player to act, as everybody sees it (not turned: it is theirs to place). */
function shownTile(hand, game, names) {
  return h("section", { class: "hand", "aria-label": "tile in hand" }, h("h2", { text: `Tile to place (${game.to_act.map(names).join(", ") || "nobody"})` }),
    h("div", { class: "hand-row" }, hand.draw(0), h("p", { class: "hand-name", text: hand.label })));
}

function handPanel(page, hand, place, turns) {
  const here = place.filter((c) => c.rotation === page.rotation).length;
  const spots = new Set(place.map((c) => `${c.q ?? c.x},${c.r ?? c.y}`)).size;
  const tile = hand ? hand.draw(page.rotation) : null;
  if (tile) tile.addEventListener("wheel", (ev) => { ev.preventDefault(); wheelTurn(page, ev); }, { passive: false });
  return h("section", { class: "hand", "aria-label": "tile in hand" },
    h("h2", { text: "Tile in hand" }),
    h("div", { class: "hand-row" }, tile,
      h("div", {},
        h("p", { class: "hand-name", text: hand ? hand.label : "a tile" }),
        h("p", { class: "hand-rotation", "aria-live": "polite", text: `Turned ${Math.round(page.rotation * 360 / turns)}°: fits ${here} of ${spots} spots.` }),
        h("button", { type: "button", class: "rotate", "aria-keyshortcuts": "R", onclick: () => page.rotate(1), text: "↻ Rotate (R)" }),
        h("button", { type: "button", class: "rotate-back", "aria-keyshortcuts": "Shift+R", onclick: () => page.rotate(-1), text: "↺" }))),
    h("p", { class: "hint", text: "Click a ghost on the board to place it there; the wheel over the board turns it." }));
}

/** The line over the board (whose turn, what is left) and the board's own things to pick that are not on
    it (Tikal's supply, Gold Mine's stack, die and tokens): buttons named by a key like any board part. */
function boardBar(board, view, ui) {
  if (!board.bar) return null;
  const { text, caption, parts } = board.bar(view, ui);
  return h("div", { class: "board-bar" }, h("p", { class: "board-status", text }),
    parts.length ? h("div", { class: "pick", role: "group", "aria-label": caption || "things to pick" }, caption ? h("span", { text: caption }) : null,
      ...parts.map((p) => h("button", { type: "button", class: "part", "data-key": p.key, title: p.title, "aria-label": p.title },
        p.piece ? s("svg", { viewBox: "0 0 24 24", width: 24, height: 24, "aria-hidden": "true" },
          s("circle", { cx: 12, cy: 12, r: p.piece === "leader" ? 11 : 9, fill: SEAT_COLOURS[p.seat % SEAT_COLOURS.length], class: p.piece === "leader" ? "leader" : "piece" }),
          p.piece === "leader" ? s("path", { d: "M6 14 l3 -5 l3 4 l3 -4 l3 5 z", class: "crown" }) : null) : null,
        h("span", { text: p.label })))) : null);
}

/** The commands that are one button (End turn, Roll, a bid…): a compact bar, each a board part with a key; a
    kind of command offered many ways (Perfect Choice's 25 colour choices) folds into one menu of its own. */
function actionBar(paths) {
  const actions = [...new Set(paths.filter((p) => p.keys.length === 1 && p.keys[0].startsWith("do:")).map((p) => p.keys[0]))];
  if (!actions.length) return null;
  const groups = new Map();
  for (const key of actions) {
    const type = key.slice(3).split(":")[0];
    groups.set(type, [...(groups.get(type) || []), key]);
  }
  const button = (key, text) => h("button", { type: "button", class: "action", "data-key": key, text });
  return h("div", { class: "action-bar", role: "group", "aria-label": "actions" }, ...[...groups].map(([type, keys]) => (keys.length <= 3
    ? keys.map((key) => button(key, key.slice(3)))
    : h("details", { class: "action-menu" }, h("summary", { text: `${type} (${keys.length})` }),
      h("div", { class: "action-list" }, ...keys.map((key) => button(key, key.slice(3).slice(type.length + 1).trim() || key.slice(3))))))).flat());
}

function players(game, names, board) {
  const v = game.view;
  const scores = Array.isArray(v.scores) ? v.scores : [];
  const toAct = game.status === "active" ? game.to_act : [];
  const winners = game.outcome ? game.outcome.winners || [] : [];
  return h("section", { class: "players", "aria-label": "players" }, h("h2", { text: "Players" }),
    h("ul", {}, ...game.seats.map((st) => h("li", { class: `player${toAct.includes(st.seat) ? " acting" : ""}${winners.includes(st.seat) ? " winner" : ""}` },
      svgChip(st.seat), h("span", { class: "name", text: names(st.seat) }),
      h("span", { class: "score", text: `${scores[st.seat] ?? "—"}` }),
      toAct.includes(st.seat) ? h("span", { class: "badge", text: "to act" }) : null,
      winners.includes(st.seat) ? h("span", { class: "badge win", text: "winner" }) : null,
      board.playerLine ? h("span", { class: "detail", text: safeLine(board, v, st.seat) }) : null))));
}

function safeLine(board, view, seat) {
  try { return board.playerLine(view, seat); } catch { return ""; }
}

function svgChip(seat) {
  return s("svg", { class: "chip", viewBox: "0 0 20 20", width: 20, height: 20, "aria-hidden": "true" },
    s("circle", { cx: 10, cy: 10, r: 8, fill: SEAT_COLOURS[seat % SEAT_COLOURS.length], class: "piece" }));
}

function movesPanel(page) {
  if (!page.log) return null;
  return h("section", { class: "moves", "aria-label": "moves" }, h("h2", { text: "Moves" }), page.log.element());
}

function legalList(paths, send) {
  const n = paths.length;
  return h("details", { class: "legal", open: n > 0 && n <= 8 ? true : undefined },
    h("summary", { text: n ? `All legal commands (${n})` : "No command for you now" }),
    h("ol", { class: "commands" }, ...paths.map(({ command: c, keys }, i) => h("li", {},
      h("button", { type: "button", "data-index": i, "data-type": c.type, "data-command": JSON.stringify(c),
        "data-keys": keys ? JSON.stringify(keys) : undefined, "data-unordered": keys && keys.unordered ? "true" : undefined,
        onclick: () => send(c), text: commandWords(c) })))));
}

function wireClicks(root, page, paths, send) {
  // a selection made before the game moved on stays while some legal command still begins with it (another
  // seat kept its prophecies while this one was choosing its own); else it is dropped
  if (page.selected.length && !paths.some((p) => matches(p.keys, page.selected))) page.selected = [];
  const toggles = () => new Set(paths.filter((p) => p.keys.unordered && matches(p.keys, page.selected))
    .flatMap((p) => page.selected.filter((k) => p.keys.includes(k))));
  const mark = () => {
    const next = new Set(paths.filter((p) => matches(p.keys, page.selected)).flatMap((p) => nextKeys(p.keys, page.selected)));
    const undo = toggles();  // a set being chosen: a chosen part is clicked again to put it back
    for (const el of root.querySelectorAll("[data-key]")) {
      if (el.closest("ol.commands")) continue;
      const on = next.has(el.dataset.key) || undo.has(el.dataset.key);
      el.classList.toggle("target", on);
      el.classList.toggle("selected", page.selected.includes(el.dataset.key));
      if (el.tagName === "BUTTON") continue;
      if (on) { el.setAttribute("tabindex", "0"); el.setAttribute("role", "button"); }
      else { el.removeAttribute("tabindex"); el.removeAttribute("role"); }
      if (on && undo.has(el.dataset.key)) el.setAttribute("aria-pressed", "true");
      else el.removeAttribute("aria-pressed");
    }
  };
  const choose = (key) => {
    root.querySelector(".choice")?.remove();
    if (toggles().has(key)) { page.selected = page.selected.filter((k) => k !== key); mark(); return; }
    const chosen = [...page.selected, key];
    const matching = paths.filter((p) => matches(p.keys, chosen));
    if (!matching.length) {  // not a next step: a fresh start from this part, else nothing chosen
      const again = page.selected.length > 0;
      page.selected = [];
      if (again) choose(key); else mark();
      return;
    }
    const done = matching.filter((p) => p.keys.length === chosen.length && !nextKeys(p.keys, chosen).length);
    if (done.length === 1 && matching.length === 1) { send(done[0].command); return; }
    page.selected = chosen;
    // complete here: offered in words (and any longer command's next target stays highlighted)
    if (done.length) offer(root, done.map((p) => p.command), send);
    mark();
  };
  const onKey = (ev) => {
    const el = ev.target.closest("[data-key].target");  // parts nest: the innermost one offered wins
    if (!el || el.closest("ol.commands")) return;
    if (ev.type === "keydown" && ev.key !== "Enter" && ev.key !== " ") return;
    if (ev.type === "keydown" && el.tagName === "BUTTON") return;  // a button clicks itself
    ev.preventDefault();
    choose(el.dataset.key);
  };
  root.addEventListener("click", onKey);
  root.addEventListener("keydown", onKey);
  mark();
}

/* A path fits a selection when the selection is its beginning. An unordered path (`keys.unordered`: a set
   of parts, then a closing key, e.g. the cards to keep, then "keep") fits when the selection holds some of
   its set in any order, and its closing key only once the whole set is chosen. */
function matches(keys, selected) {
  if (!keys.unordered) return selected.length <= keys.length && selected.every((k, i) => keys[i] === k);
  const body = keys.slice(0, -1), last = keys[keys.length - 1];
  const picked = selected[selected.length - 1] === last ? selected.slice(0, -1) : selected;
  if (new Set(picked).size !== picked.length || !picked.every((k) => body.includes(k))) return false;
  return picked.length === selected.length || picked.length === body.length;
}

/** The keys that may come next after `selected` (already known to match). */
function nextKeys(keys, selected) {
  if (!keys.unordered) return selected.length < keys.length ? [keys[selected.length]] : [];
  const body = keys.slice(0, -1), last = keys[keys.length - 1];
  if (selected.includes(last)) return [];
  return selected.length === body.length ? [last] : body.filter((k) => !selected.includes(k));
}

function offer(root, commands, send) {
  root.querySelector(".choice")?.remove();
  const box = h("div", { class: "choice", role: "group", "aria-label": "choose one" },
    h("p", { text: "Choose:" }), ...commands.map((c) => h("button", { type: "button", "data-command": JSON.stringify(c), onclick: () => send(c), text: commandWords(c) })));
  root.querySelector(".side").prepend(box);
  box.querySelector("button").focus();
}
