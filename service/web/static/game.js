/* A game page: the board drawn from the caller's view, legal commands as clicks and in words, live. */

import { get, post, me, ApiError } from "./api.js";
import { h, status } from "./dom.js";
import { commandWords } from "./words.js";
import { follow } from "./live.js";
import { boardFor, loadBoard, clickPath, addActionBar } from "./boards/index.js";

/** Show game `id` in `root`; returns a function that stops following it. */
export async function showGame(root, id) {
  const page = { id, game: null, legal: null, selected: [], busy: false, stale: false };
  const player = me();
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
      } while (page.stale);
      const shown = `${page.game.version}/${page.game.status}/${page.legal ? page.legal.version : "-"}`;
      if (shown !== page.shown) {  // re-draw only on change: a selection survives polls and heartbeats
        page.shown = shown;
        page.selected = [];
        render(root, page, send);
      }
    } catch (err) {
      status(err.message, true);
    } finally {
      page.busy = false;
    }
  };
  const send = async (command) => {
    try {
      status(`Sending: ${commandWords(command)}`);
      const done = await post(`/v1/games/${id}/commands?include=view,legal`, { command, expected_version: page.legal.version });
      status(`Done: ${commandWords(command)}`);
      if (done.view && done.legal && done.status === "active" && !page.busy) {  // one round trip per step
        page.game = { ...page.game, version: done.version, status: done.status, to_act: done.to_act, view: done.view };
        page.legal = Array.isArray(done.legal) ? { seat: page.legal.seat, version: done.version, commands: done.legal } : done.legal;
        page.selected = [];
        page.shown = `${done.version}/${done.status}/${page.legal.version}`;
        render(root, page, send);
        return;
      }
    } catch (err) {
      status(err instanceof ApiError && err.code === "version_conflict" ? "The game moved on; refreshed." : err.message, true);
    }
    await refresh();
  };
  await refresh();
  const seated = player && page.game.seats.some((s) => s.player_id === player.id);
  const live = await follow(id, seated, (frame) => {
    if (frame.type === "snapshot" || frame.version === undefined || !page.game || frame.version > page.game.version) refresh();
  });
  root.dataset.live = live.mode;
  return live.stop;
}

function mySeat(game) {
  const player = me();
  const seat = player && game.seats.find((s) => s.player_id === player.id);
  return seat ? seat.seat : null;
}

function seatName(game, seat) {
  const s = game.seats.find((x) => x.seat === seat);
  return s && s.name ? `${s.name} (seat ${seat})` : `seat ${seat}`;
}

function render(root, page, send) {
  const { game, legal } = page;
  const board = boardFor(game.kind);
  const names = (seat) => seatName(game, seat);
  const commands = legal ? legal.commands : [];
  if (!game.view) { root.replaceChildren(h("h1", { text: `${game.kind} · ${game.status}` }), waiting(game, names)); return; }
  const seat = legal ? legal.seat : mySeat(game);
  const drawn = board.draw(game.view, { names, seats: game.seats.length, commands, seat });
  const paths = commands.map((c) => ({ command: c, keys: clickPath(game.kind, c, { view: game.view, seat }) }));
  const header = h("section", { class: "info", "aria-label": "game" },
    h("h1", { text: `${game.kind} · ${game.status}` }),
    h("p", {},
      `Version ${game.version}. `,
      game.status === "active" ? `To act: ${game.to_act.map(names).join(", ") || "nobody"}. ` : "",
      mySeat(game) !== null ? `You are ${names(mySeat(game))}. ` : "You are watching. ",
      commands.length ? h("strong", { class: "your-turn", text: "Your turn." }) : ""),
    game.outcome ? h("p", { class: "outcome" }, outcomeWords(game, names)) : null,
    game.status === "finished" ? h("p", {}, h("a", { href: `#/replay/${game.id}`, text: "Replay and verify this game" })) : null);
  const svg = drawn.svg;
  addActionBar(svg, paths.filter((p) => p.keys));
  wireClicks(svg, page, paths.filter((p) => p.keys), send);
  const summary = h("details", { class: "summary", open: true }, h("summary", { text: "Board in words" }),
    h("div", { class: "board-text" }, ...drawn.summary.map((line) => h("p", { text: line }))));
  const list = h("section", { class: "legal", "aria-label": "legal commands" },
    h("h2", { text: commands.length ? `Your legal commands (${commands.length})` : "No command for you now" }),
    h("ol", { class: "commands" }, ...paths.map(({ command: c, keys }, i) => h("li", {},
      h("button", { type: "button", "data-index": i, "data-type": c.type, "data-command": JSON.stringify(c),
        "data-keys": keys ? JSON.stringify(keys) : undefined, "data-unordered": keys && keys.unordered ? "true" : undefined, onclick: () => send(c), text: commandWords(c) })))));
  const focused = document.activeElement;
  const keep = focused && focused !== root && root.contains(focused) ? (focused.dataset.key || "") : null;
  const byKeyboard = keep !== null && focused.matches(":focus-visible");
  root.replaceChildren(header, h("div", { class: "table" }, h("div", { class: "board-wrap" }, svg), list), summary);
  if (keep !== null) refocus(root, keep, byKeyboard);
}

/* A keyboard player keeps their place across re-draws: the same board part if it is offered again, else the
   first part offered, else the first legal command, else the page (scrolled to only for keyboard users). */
function refocus(root, key, scroll) {
  const same = key && [...root.querySelectorAll("svg.board [data-key].target")].find((el) => el.dataset.key === key);
  const next = same || root.querySelector("svg.board [data-key].target") || root.querySelector("ol.commands button") || root;
  next.focus({ preventScroll: !scroll });
}

function waiting(game, names) {
  return h("p", {}, `Waiting for players: ${game.seats.map((s) => (s.player_id ? names(s.seat) : `seat ${s.seat} free`)).join(", ")}. `,
    h("a", { href: "#/", text: "Join or start it from the lobby." }));
}

function outcomeWords(game, names) {
  const o = game.outcome;
  const winners = (o.winners || []).map(names).join(", ");
  return `Over. Scores: ${(o.scores || []).map((v, i) => `${names(i)} ${v}`).join(", ")}. Winner: ${winners || "none"}.`;
}

/* Clicks: each board names its clickable parts by a key (data-key); each command maps to a path of
   keys (select a piece, then a target; plain actions are buttons of the action bar). A click extends the selection; one full match is sent, several
   are offered as a short choice in words. */
function wireClicks(svg, page, paths, send) {
  const toggles = () => new Set(paths.filter((p) => p.keys.unordered && matches(p.keys, page.selected))
    .flatMap((p) => page.selected.filter((k) => p.keys.includes(k))));
  const mark = () => {
    const next = new Set(paths.filter((p) => matches(p.keys, page.selected)).flatMap((p) => nextKeys(p.keys, page.selected)));
    const undo = toggles();  // a set being chosen: a chosen part is clicked again to put it back
    for (const el of svg.querySelectorAll("[data-key]")) {
      const on = next.has(el.dataset.key) || undo.has(el.dataset.key);
      el.classList.toggle("target", on);
      el.classList.toggle("selected", page.selected.includes(el.dataset.key));
      if (on) { el.setAttribute("tabindex", "0"); el.setAttribute("role", "button"); }
      else { el.removeAttribute("tabindex"); el.removeAttribute("role"); }
      if (on && undo.has(el.dataset.key)) el.setAttribute("aria-pressed", "true");
      else el.removeAttribute("aria-pressed");
    }
  };
  const choose = (key) => {
    svg.closest(".table")?.querySelector(".choice")?.remove();
    if (toggles().has(key)) { page.selected = page.selected.filter((k) => k !== key); mark(); return; }
    const chosen = [...page.selected, key];
    const matching = paths.filter((p) => matches(p.keys, chosen));
    if (!matching.length) { page.selected = []; mark(); return; }
    const done = matching.filter((p) => p.keys.length === chosen.length && !nextKeys(p.keys, chosen).length);
    if (done.length === 1 && matching.length === 1) { send(done[0].command); return; }
    page.selected = chosen;
    // complete here: offered in words (and any longer command's next target stays highlighted)
    if (done.length) offer(svg, done.map((p) => p.command), send);
    mark();
  };
  const onKey = (ev) => {
    const el = ev.target.closest("[data-key].target");  // parts nest: the innermost one offered wins
    if (!el) return;
    if (ev.type === "keydown" && ev.key !== "Enter" && ev.key !== " ") return;
    ev.preventDefault();
    choose(el.dataset.key);
  };
  svg.addEventListener("click", onKey);
  svg.addEventListener("keydown", onKey);
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

function offer(svg, commands, send) {
  const wrap = svg.closest(".table");
  wrap.querySelector(".choice")?.remove();
  const box = h("div", { class: "choice", role: "group", "aria-label": "choose one" },
    h("p", { text: "Choose:" }), ...commands.map((c) => h("button", { type: "button", "data-command": JSON.stringify(c), onclick: () => send(c), text: commandWords(c) })));
  wrap.prepend(box);
  box.querySelector("button").focus();
}
