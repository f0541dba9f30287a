/* Arenas: the list and the create form, and one arena's countdown, live standings and join/pause/leave.

Only the public API: /v1/arenas (list, create, get, join, pause, leave; the organiser's bots) and the arena's Server-Sent Events
stream, whose `snapshot` and `standings` frames carry the arena's view (the server does the scoring). */

import { get, post, me } from "./api.js";
import { h, status } from "./dom.js";
import { kindFields } from "./options.js";
import { registerForm, redraw } from "./lobby.js";
import { addBots } from "./tournaments.js";

/** The arenas page: the newest arenas and (signed in) a form to organise one. */
export async function showArenas(root) {
  const player = me();
  const list = h("ul", { id: "arenas" });
  const refresh = async () => {
    try {
      const page = await get("/v1/arenas?limit=50");
      list.replaceChildren(...page.items.map((a) => h("li", { "data-arena": a.arena_id },
        h("a", { href: `#/arena/${a.arena_id}`, text: a.name || `${a.kind} arena` }),
        ` — ${a.kind}, ${a.players} players, ${a.status}`)));
      if (!page.items.length) list.replaceChildren(h("li", { text: "No arena yet." }));
    } catch (err) { status(err.message, true); }
  };
  const kinds = await get("/v1/kinds");
  root.replaceChildren(h("h1", { text: "Arenas" }), h("div", { class: "cards" }, player ? createForm(kinds) : registerForm(redraw),
    h("section", { "aria-labelledby": "a-list-h" }, h("h2", { id: "a-list-h", text: "Newest arenas" }), list)));
  await refresh();
  const timer = setInterval(refresh, 5000);  // new arenas are on no stream
  return () => clearInterval(timer);
}

function field(id, label, attrs) {
  const input = h("input", { id, name: id, ...attrs });
  return { input, el: h("div", { class: "field" }, h("label", { for: id, text: label }), input) };
}

function createForm(kinds) {
  const f = kindFields(kinds, "a-");
  const name = field("a-name", "Name", { maxlength: 200 });
  const minutes = field("a-minutes", "Minutes", { type: "number", value: 30, min: 1, max: 1440 });
  const clock = field("a-clock", "Seconds per player (0: no clock)", { type: "number", value: 180, min: 0, max: 86400 });
  const berserk = field("a-berserk", "Berserk allowed", { type: "checkbox", checked: true });
  return h("form", { class: "card", id: "a-create", onsubmit: async (ev) => {
    ev.preventDefault();
    const seconds = Number(clock.input.value);
    const body = { kind: f.kind(), name: name.input.value.trim(), options: f.options(), seats: f.seats(),
      minutes: Number(minutes.input.value), berserk: seconds > 0 && berserk.input.checked };
    if (seconds) body.time_control = { total_seconds: seconds };
    try {
      const arena = await post("/v1/arenas", body);
      location.hash = `#/arena/${arena.arena_id}`;
    } catch (err) { status(err.message, true); }
  } }, h("h2", { text: "Organise an arena" }), name.el, f.kindField, f.seatsField, minutes.el, clock.el, berserk.el,
  f.optionsBox, h("button", { type: "submit", text: "Create" }));
}

/** "12:05" for a number of milliseconds (never negative). */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  return `${m}:${String(total % 60).padStart(2, "0")}`;
}

/** One arena: countdown, live standings (from the stream), and the caller's join / pause / leave. */
export async function showArena(root, id) {
  let shown = null;
  let source = null;
  const countdown = h("p", { id: "a-countdown", "aria-live": "off" });
  const tick = () => {
    if (!shown) return;
    const now = Date.now();
    if (shown.status === "finished") countdown.textContent = "Finished";
    else if (shown.status === "closing") countdown.textContent = "Time is up: the last games are finishing";
    else if (now < shown.starts_at_ms) countdown.textContent = `Starts in ${clockText(shown.starts_at_ms - now)}`;
    else countdown.textContent = `Ends in ${clockText(shown.ends_at_ms - now)}`;
  };
  const act = async (what, words, body) => {
    try {
      draw(await post(`/v1/arenas/${id}/${what}`, what === "join" ? {} : body));
      if (words) status(words);
    } catch (err) { status(err.message, true); }
  };
  const draw = (view) => {
    if (shown && view.version < shown.version) return;
    shown = view;
    render(root, view, countdown, act);
    tick();
    if (view.status === "finished" && source) { source.close(); root.dataset.live = "ended"; }
  };
  draw(await get(`/v1/arenas/${id}`));
  const timer = setInterval(tick, 1000);
  if (shown.status !== "finished") {
    source = new EventSource(`/v1/arenas/${id}/stream`);
    const take = (msg) => { try { draw(JSON.parse(msg.data)); } catch { /* not a view */ } };
    source.addEventListener("snapshot", take);
    source.addEventListener("standings", (msg) => {
      const view = JSON.parse(msg.data);
      // the frame carries the leaders only: keep the whole table when it has more rows
      if (shown && view.players > view.standings.length) get(`/v1/arenas/${id}`).then(draw, () => {});
      else take(msg);
    });
    root.dataset.live = "stream";
  }
  return () => { clearInterval(timer); if (source) source.close(); };
}

function render(root, a, countdown, act) {
  const player = me();
  const mine = player && a.standings.find((s) => s.player_id === player.id);
  const buttons = [];
  if (player && a.status === "open") {
    if (!mine || mine.presence === "paused") buttons.push(h("button", { id: "a-join", text: mine ? "Resume" : "Join", onclick: () => act("join") }));
    if (mine && mine.presence === "active") {
      buttons.push(h("button", { id: "a-pause", text: "Pause", onclick: () => act("pause") }));
      buttons.push(h("button", { id: "a-leave", text: "Leave for good", onclick: () => act("leave") }));
    }
  }
  const organiser = player && player.id === a.organiser && a.status === "open"
    ? h("section", { id: "a-tools", "aria-labelledby": "a-tools-h" }, h("h2", { id: "a-tools-h", text: "Organiser's tools" }), addBots(act, "a"))
    : null;
  const playing = mine && mine.playing ? h("p", {}, h("a", { id: "a-my-game", href: `#/game/${mine.playing}`, text: "Your game is on: play it" })) : null;
  const rows = a.standings.map((s) => h("tr", { "data-player": s.player_id },
    h("td", { class: "rank", text: String(s.rank) }), h("th", { scope: "row", text: s.name }),
    h("td", { class: "points", text: String(s.points) }), h("td", { class: "games", text: String(s.games) }),
    h("td", { class: "fire", text: s.fire ? "on fire" : "" }), h("td", { class: "sheet", text: s.sheet.slice(-10).join(" ") }),
    h("td", { class: "presence", text: s.playing ? "playing" : s.presence })));
  root.replaceChildren(...[h("h1", { text: a.name || `${a.kind} arena` }),
    h("p", { text: `${a.kind}, ${a.seats} per game, ${a.players} players, ${a.games} games (${a.running} running)` +
      (a.berserk ? ", berserk allowed" : "") }),
    countdown, playing, h("div", { class: "actions" }, ...buttons), organiser,
    h("div", { class: "scroll" }, h("table", { id: "a-standings" }, h("caption", { text: "Standings: 2 a win, 1 a draw, doubled on a streak of two wins" }),
      h("thead", {}, h("tr", {}, ...["#", "Player", "Points", "Games", "Streak", "Last games", ""].map((t) => h("th", { scope: "col", text: t })))),
      h("tbody", {}, ...rows))),
    a.seed ? h("p", { id: "a-seed", text: `Seed: ${a.seed}` }) : null].filter(Boolean));
}
