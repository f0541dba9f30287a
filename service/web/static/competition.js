/* One competition's page, whatever its format (the one competition model: Swiss, round robin, single elimination,
duplicate and the arena): what the viewer may do, the standings, the organiser's tools, followed live; then the
format's own part (format-rounds.js: the rounds, crosstable and report; format-arena.js: the countdown and berserk).

Only the public API: /v1/tournaments/{id} and /v1/arenas/{id} (read, enter, leave, pause, resume, start, bots,
the organiser's tools) and their Server-Sent Events streams: a `snapshot` frame first, then each event (an arena
also sends its view after each batch in a `standings` frame; the server does the scoring). */

import { get, post, me, explain } from "./api.js";
import { h, redrawKeepingFields, status } from "./dom.js";
import { ROUNDS } from "./format-rounds.js";
import { ARENA } from "./format-arena.js";

/** The family of each page: its API, stream frames, and the format's part of the page. */
const FAMILIES = { tournament: { api: "/v1/tournaments", ...ROUNDS }, arena: { api: "/v1/arenas", ...ARENA } };

/** A competition of `family` ("tournament" or "arena"), live: its standings, the viewer's actions and the format's
part; the stream's frames redraw it (a tournament's view carries no version: the newest request's answer wins). A
move answered with the competition is drawn from its answer; one answered with the player's entry alone (the
format's `answersEntry(what)`: a tournament's register and withdraw, an arena's join, pause, leave and berserk)
reads the competition again. */
export async function showCompetition(root, family, id) {
  const f = FAMILIES[family];
  const page = { shown: null, source: null, asked: 0, berserked: new Set() };
  const draw = (view) => {
    if (page.shown && view.version < page.shown.version) return;  // an arena's frame older than what is shown
    page.shown = view;
    render(root, f, view, act, page);
    root.dataset.tournamentStatus = view.status;
    if (view.status === "finished" && page.source) { page.source.close(); root.dataset.live = "ended"; }  // it ends too
  };
  const reload = async () => {
    const n = ++page.asked;
    try {
      const view = await get(`${f.api}/${id}`);
      if (n === page.asked) draw(view);
    } catch (err) { status(explain(err), true); }
  };
  const act = async (what, words, body = {}) => {
    const n = ++page.asked;
    try {
      const answer = await post(`${f.api}/${id}/${what}`, body);
      if (f.answersEntry && f.answersEntry(what)) await reload();  // the player's entry, not the view
      else if (n === page.asked) draw(answer);
      status(words);
    } catch (err) {
      status(explain(err), true);
      await reload();
    }
  };
  draw(await get(`${f.api}/${id}`));
  const stops = [f.start ? f.start(page) : () => {}];
  if (page.shown.status !== "finished") {
    page.source = new EventSource(`${f.api}/${id}/stream`);
    page.source.addEventListener("snapshot", (msg) => {
      try { draw(JSON.parse(msg.data)); } catch { /* not a view */ }
    });
    f.follow(page.source, draw, reload);
    root.dataset.live = "stream";
  }
  return () => { for (const stop of stops) stop(); if (page.source) page.source.close(); };
}

function render(root, f, c, act, page) {
  const player = me();
  const mine = player && c.standings.find((s) => s.player_id === player.id);
  const organiser = player && c.organiser === player.id;
  const game = f.myGame(c, player, mine);
  redrawKeepingFields(root,
    h("section", { class: "info", "aria-label": "competition" },
      h("h1", { text: `${c.name || f.title(c)} · ${c.status}` }),
      h("p", { id: "t-summary" }, ...f.summary(c), organiser ? "You organise it. " : "",
        mine ? `You are ${f.entered} as ${mine.name}${f.pausedNow(mine) ? " (paused)" : ""}. ` : ""),
      f.head ? f.head(c, page) : null,
      game ? h("p", { class: "your-turn" }, h("a", { id: "t-my-game", href: `#/game/${game.id}`, text: game.text }),
        f.gameTools ? f.gameTools(c, game, act, page) : null) : null,
      actionBar(f, c, player, mine, organiser, act)),
    h("section", { "aria-labelledby": "t-standings-h" }, h("h2", { id: "t-standings-h", text: "Standings" }),
      standingsTable(f, c, player)),
    organiser && f.toolsOpen(c) ? h("section", { id: "t-tools", "aria-labelledby": "t-tools-h" },
      h("h2", { id: "t-tools-h", text: "Organiser's tools" }), f.entriesOpen(c) ? addBots(act) : null,
      ...(f.tools ? f.tools(c, act) : [])) : null,
    ...f.parts(c, player, organiser, act),
    h("p", { class: "seed" }, `Seed commitment ${c.seed_commitment}`, c.seed ? `; seed ${c.seed} (revealed)` : " (the seed is revealed at the end)"));
}

/** What the viewer may do now, the same four moves in every format (each format names its own endpoints and
words): enter (with the invitation code when asked), leave, pause and resume; and the organiser's start. */
function actionBar(f, c, player, mine, organiser, act) {
  const actions = [];
  const may = f.may(c, mine);
  if (!player) {
    if (may.enter) actions.push(h("a", { href: "#/competitions", text: "Register a name to take part." }));
    return actions.length ? h("p", { class: "actions" }, ...actions) : null;
  }
  const button = (id, [what, text, words], body) => h("button", { type: "button", id, text,
    onclick: () => act(what, words, body ? body() : {}) });
  if (may.enter) {
    const code = c.invitation ? h("input", { id: "t-code", "aria-label": "invitation code", placeholder: "invitation code", maxlength: 64 }) : null;
    if (code) actions.push(code);
    actions.push(button("t-register", f.moves(c).enter, () => (code && code.value.trim() ? { code: code.value.trim() } : {})));
  }
  if (may.resume) actions.push(button("t-resume", f.moves(c).resume));
  if (may.pause) actions.push(button("t-pause", f.moves(c).pause));
  if (may.leave) actions.push(button("t-withdraw", f.moves(c).leave));
  if (organiser && f.startable && f.startable(c)) {
    const short = c.players < c.min_players;  // the server refuses it too (409 tournament.too_few_players)
    actions.push(h("button", { type: "button", id: "t-start", disabled: short || undefined, onclick: () => act("start", "Started"),
      text: short ? `Start (needs ${c.min_players} players, ${c.players} registered)` : `Start with ${c.players} player${c.players === 1 ? "" : "s"}` }));
  }
  return actions.length ? h("p", { class: "actions" }, ...actions) : null;
}

/** The organiser adds bots (POST .../bots, in every format): how many, which strategy, how strong. */
function addBots(act) {
  const count = h("input", { id: "t-bots-count", type: "number", min: 1, max: 64, value: 2, "aria-label": "bots to add" });
  const strategy = h("select", { id: "t-bots-strategy", "aria-label": "bot strategy" },
    h("option", { value: "greedy", text: "Greedy (reads the board)" }), h("option", { value: "random", text: "Random" }));
  const strength = h("input", { id: "t-bots-strength", type: "number", min: 1, max: 5, value: 3, "aria-label": "bot strength (1–5)" });
  const add = () => act("bots", `Bots added (${count.value})`,
    { count: Number(count.value), strategy: strategy.value, strength: Number(strength.value) });
  return h("p", { class: "actions", id: "t-bots" }, h("label", { for: "t-bots-count", text: "Add bots: " }), count, strategy,
    h("label", { for: "t-bots-strength", text: " strength " }), strength,
    h("button", { type: "button", id: "t-bots-add", onclick: add, text: "Add bots" }));
}

/** The standings, best first: place, player, points, the format's own columns, games and the player's state. */
function standingsTable(f, c, player) {
  if (!c.standings.length) return h("p", { text: "Nobody has entered yet." });
  const columns = f.columns(c);
  const head = ["Place", "Player", "Points", ...columns.map((col) => col.title), "Games", ...(f.after || []).map((col) => col.title), ""]
    .map((x) => h("th", { scope: "col", text: x }));
  const cells = (cols, s) => cols.map((col) => h("td", { class: col.class, text: col.text(s) }));
  return h("div", { class: "scroll" }, h("table", { id: "t-standings", class: "standings" },
    f.caption ? h("caption", { text: f.caption }) : null,
    h("thead", {}, h("tr", {}, ...head)),
    h("tbody", {}, ...c.standings.map((s) => h("tr", { "data-player": s.player_id, class: player && s.player_id === player.id ? "me" : "" },
      h("td", { class: "place", text: String(f.place(s)) }), h("th", { scope: "row", text: s.name }),
      h("td", { class: "points", text: String(s.points) }), ...cells(columns, s),
      h("td", { class: "games", text: String(s.games) }), ...cells(f.after || [], s),
      h("td", { class: "state", text: f.state(s) }))))));
}
