/* The lobby: register or sign in, create a game of any kind from its option schema, join, start, my games,
   and the account (password, apps and tokens). */

import { get, client, me, register, forget, explain } from "./api.js";
import { follow } from "./live.js";
import { h, status } from "./dom.js";
import { kindFields } from "./options.js";
import { accountPanel, signInForm } from "./account.js";

/** Show the lobby in `root`; returns a function that stops its live updates. */
export async function showLobby(root) {
  const player = me();
  if (!player) {
    root.replaceChildren(h("div", { class: "cards" }, registerForm(redraw), signInForm(redraw)));
    return () => {};
  }
  document.getElementById("me").textContent = `Signed in as ${player.name}`;
  const kinds = await get("/v1/kinds");
  const open = h("section", { "aria-labelledby": "open-h" }, h("h2", { id: "open-h", text: "Open games" }), h("ul", { id: "open-games" }));
  const mine = h("section", { "aria-labelledby": "mine-h" }, h("h2", { id: "mine-h", text: "My games" }), h("ul", { id: "my-games" }));
  root.replaceChildren(
    h("h1", { text: `Lobby — ${player.name}` }),
    h("p", {}, h("button", { type: "button", onclick: () => { forget(); redraw(); }, text: "Sign out (forget my token)" })),
    h("div", { class: "cards" }, botForm(kinds), createForm(kinds), open, mine), accountPanel());
  const live = new Map();  // game id -> the newest personal-stream frame (ahead of the read models)
  const refresh = async () => {
    try {
      await Promise.all([listOpen(open.querySelector("ul"), player, refresh), listMine(mine.querySelector("ul"), player, live)]);
    } catch (err) { status(explain(err), true); }
  };
  await refresh();
  const timer = setInterval(refresh, 5000);  // others' new games and joins are on nobody's personal stream
  const notices = follow({ personal: true }, (frame) => {  // the personal notices, on the page's one connection
    if (!frame.type.startsWith("game.")) return;
    if ((live.get(frame.game_id)?.version ?? -1) <= frame.version) live.set(frame.game_id, frame);
    refresh();
  });
  return () => { clearInterval(timer); notices.stop(); };
}

/** Show the current page again through the router, which stops the old one's timers and streams first. */
export function redraw() {
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function registerForm(done) {
  const name = h("input", { id: "name", name: "name", required: true, maxlength: 40, autocomplete: "nickname" });
  return h("form", { class: "card", onsubmit: async (ev) => {
    ev.preventDefault();
    try { await register(name.value.trim()); done(); } catch (err) { status(explain(err), true); }
  } }, h("h1", { text: "Welcome to Stela" }), h("label", { for: "name", text: "Your name" }), name,
  h("button", { type: "submit", text: "Register" }));
}

/* --- the create form, generated from each kind's options JSON schema --- */

function createForm(kinds) {
  const f = kindFields(kinds);
  return h("form", { class: "card", id: "create", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const game = await client().createGame({ kind: f.kind(), seats: f.seats(), options: f.options() });
      location.hash = `#/game/${game.id}`;
    } catch (err) { status(explain(err), true); }
  } }, h("h2", { text: "Create a game" }), f.kindField, f.seatsField, f.optionsBox, h("button", { type: "submit", text: "Create" }));
}

/* --- play against bots: a game of any kind, the other seats filled with bots a worker plays --- */

function botForm(kinds) {
  const f = kindFields(kinds, "bot-");
  const strategy = h("select", { id: "bot-strategy" }, h("option", { value: "greedy", text: "Greedy (reads the board)" }),
    h("option", { value: "random", text: "Random" }));
  const strength = h("input", { id: "bot-strength", type: "number", min: 1, max: 5, value: 3, required: true });
  return h("form", { class: "card", id: "play-bots", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const seats = f.seats();
      const bot = { strategy: strategy.value, strength: Number(strength.value) };
      const game = await client().createGame({ kind: f.kind(), seats, options: f.options(), bots: Array(seats - 1).fill(bot) });
      location.hash = `#/game/${game.id}`;
    } catch (err) { status(explain(err), true); }
  } }, h("h2", { text: "Play against a bot" }), f.kindField, f.seatsField, f.optionsBox,
  h("div", { class: "field" }, h("label", { for: "bot-strategy", text: "Bot" }), strategy),
  h("div", { class: "field" }, h("label", { for: "bot-strength", text: "Strength (1–5)" }), strength),
  h("button", { type: "submit", text: "Play against a bot" }));
}

/* --- lists --- */

async function listOpen(ul, player, refresh) {
  const page = await get("/v1/games?status=open&limit=50");
  ul.replaceChildren(...page.items.map((g) => {
    const seated = g.seats.some((s) => s.player_id === player.id);
    const full = g.open_seats === 0;
    const act = async (what) => {
      try { await (what === "join" ? client().join(g.id) : client().start(g.id)); status(`${what === "join" ? "Joined" : "Started"} ${g.kind}`); }
      catch (err) { status(explain(err), true); }
      await refresh();
    };
    return h("li", { "data-game": g.id }, h("a", { href: `#/game/${g.id}`, text: `${g.kind}` }),
      ` — ${g.seats.map((s) => s.name || "free").join(", ")} (${g.open_seats} seat${g.open_seats === 1 ? "" : "s"} free) `,
      !seated && !full ? h("button", { type: "button", class: "join", onclick: () => act("join"), text: "Join" }) : null,
      seated && full ? h("button", { type: "button", class: "start", onclick: () => act("start"), text: "Start" }) : null);
  }));
  if (!page.items.length) ul.replaceChildren(h("li", { text: "No open game. Create one!" }));
}

async function listMine(ul, player, live) {
  const page = await get(`/v1/games?player=${encodeURIComponent(player.id)}&limit=50`);
  const games = page.items.map((g) => {
    const f = live.get(g.id);
    return f && f.version >= g.version ? { ...g, status: f.status, version: f.version, yourTurn: f.your_turn } : g;
  });
  for (const f of live.values()) {
    if (!games.some((g) => g.id === f.game_id)) games.unshift({ id: f.game_id, kind: f.kind, status: f.status, version: f.version, yourTurn: f.your_turn, seats: [], to_act: [] });
  }
  const running = games.filter((g) => g.status === "active" || g.status === "finished");
  ul.replaceChildren(...running.map((g) => {
    const seat = g.seats.find((s) => s.player_id === player.id);
    const turn = g.status === "active" && (g.yourTurn ?? (seat && g.to_act.includes(seat.seat)));
    return h("li", { "data-game": g.id, class: turn ? "turn" : "" }, h("a", { href: `#/game/${g.id}`, text: g.kind }),
      ` — ${g.status}, version ${g.version}`, turn ? h("strong", { text: " · your turn" }) : "");
  }));
  if (!running.length) ul.replaceChildren(h("li", { text: "No running game." }));
}
