/* Tournaments: the list and the create form, and one tournament's standings, rounds and live tables.

Only the public API: /v1/tournaments (list, create, get, register, withdraw, start) and the tournament's
Server-Sent Events stream, whose frames are named by type (a snapshot first, then each event). */

import { get, post, me, explain } from "./api.js";
import { h, status } from "./dom.js";
import { kindFields } from "./options.js";
import { registerForm, redraw } from "./lobby.js";

const FORMATS = [["swiss", "Swiss"], ["round_robin", "Round robin"], ["single_elimination", "Single elimination"]];
const EVENTS = ["TournamentCreated", "PlayerRegistered", "PlayerWithdrew", "TournamentStarted", "RoundPaired",
  "ResultRecorded", "TournamentEnded", "SeedRevealed"].map((t) => `tournament.${t}`);

/** The tournaments page: every tournament, newest first, and (signed in) a form to organise one. */
export async function showTournaments(root) {
  const player = me();
  const list = h("ul", { id: "tournaments" });
  const refresh = async () => {
    try {
      const page = await get("/v1/tournaments?limit=50");
      list.replaceChildren(...page.items.map((t) => h("li", { "data-tournament": t.tournament_id },
        h("a", { href: `#/tournament/${t.tournament_id}`, text: t.name || `${t.kind} tournament` }),
        ` — ${t.kind}, ${formatWords(t.format)}, ${t.status}${player && t.organiser === player.id ? " (yours)" : ""}`)));
      if (!page.items.length) list.replaceChildren(h("li", { text: "No tournament yet." }));
    } catch (err) { status(explain(err), true); }
  };
  const kinds = await get("/v1/kinds");
  root.replaceChildren(h("h1", { text: "Tournaments" }),
    player ? createForm(kinds) : registerForm(redraw),
    h("section", { "aria-labelledby": "t-list-h" }, h("h2", { id: "t-list-h", text: "All tournaments" }), list));
  await refresh();
  const timer = setInterval(refresh, 5000);  // new tournaments are on no stream
  return () => clearInterval(timer);
}

function formatWords(format) {
  return (FORMATS.find(([f]) => f === format) || [format, format])[1].toLowerCase();
}

function numberField(id, label, value, min, max, help) {
  const input = h("input", { id, name: id, type: "number", value, min, max, "aria-describedby": help ? `${id}-help` : undefined });
  return { input, el: h("div", { class: "field" }, h("label", { for: id, text: label }), input,
    help ? h("small", { id: `${id}-help`, text: help }) : null) };
}

function createForm(kinds) {
  const f = kindFields(kinds, "t-");
  const name = h("input", { id: "t-name", name: "name", maxlength: 200 });
  const format = h("select", { id: "t-format", name: "format" }, ...FORMATS.map(([v, text]) => h("option", { value: v, text })));
  const rounds = numberField("t-rounds", "Rounds", 3, 0, 100, "Swiss rounds; round robin: 0 = every pair once");
  const advance = numberField("t-advance", "Go through per table", 1, 1, 5, "single elimination only");
  const showAdvance = () => { advance.el.hidden = format.value !== "single_elimination"; };
  format.addEventListener("change", showAdvance);
  showAdvance();
  return h("form", { class: "card", id: "t-create", onsubmit: async (ev) => {
    ev.preventDefault();
    const body = { kind: f.kind(), name: name.value.trim(), options: f.options(), seats: f.seats(), format: format.value,
      rounds: Number(rounds.input.value) };
    if (format.value === "single_elimination") body.advance = Number(advance.input.value);
    try {
      const t = await post("/v1/tournaments", body);
      location.hash = `#/tournament/${t.tournament_id}`;
    } catch (err) { status(explain(err), true); }
  } }, h("h2", { text: "Organise a tournament" }),
  h("div", { class: "field" }, h("label", { for: "t-name", text: "Name" }), name),
  f.kindField, f.seatsField,
  h("div", { class: "field" }, h("label", { for: "t-format", text: "Format" }), format),
  rounds.el, advance.el, f.optionsBox, h("button", { type: "submit", text: "Create tournament" }));
}

/** One tournament, live: actions for the viewer, standings, and every round's tables with links to their games. */
export async function showTournament(root, id) {
  let shown = null;
  let source = null;
  let asked = 0;  // the view carries no version: only the answer to the newest request is drawn
  const draw = (view) => {
    shown = view;
    render(root, view, act);
    root.dataset.tournamentStatus = view.status;
    if (view.status === "finished" && source) { source.close(); root.dataset.live = "ended"; }  // the stream ends too
  };
  const reload = async () => {
    const n = ++asked;
    try {
      const view = await get(`/v1/tournaments/${id}`);
      if (n === asked) draw(view);
    } catch (err) { status(explain(err), true); }
  };
  const act = async (what, words) => {
    const n = ++asked;
    try {
      const view = await post(`/v1/tournaments/${id}/${what}`, {});
      if (n === asked) draw(view);
      status(words);
    } catch (err) {
      status(explain(err), true);
      await reload();
    }
  };
  draw(await get(`/v1/tournaments/${id}`));
  if (shown.status !== "finished") {
    source = new EventSource(`/v1/tournaments/${id}/stream`);
    source.addEventListener("snapshot", (msg) => {
      try { draw(JSON.parse(msg.data)); } catch { /* not a view */ }
    });
    for (const type of EVENTS) source.addEventListener(type, reload);  // the view is folded by the server
    root.dataset.live = "stream";
  }
  return () => source && source.close();
}

function render(root, t, act) {
  const player = me();
  const names = new Map(t.standings.map((s) => [s.player_id, s.name]));
  const nameOf = (pid) => names.get(pid) || pid.slice(0, 8);
  const mine = player && t.standings.find((s) => s.player_id === player.id);
  const organiser = player && t.organiser === player.id;
  const actions = [];
  if (player && t.status === "registration") {
    if (!mine) actions.push(h("button", { type: "button", id: "t-register", onclick: () => act("register", "Registered"), text: "Register" }));
    else actions.push(h("button", { type: "button", id: "t-withdraw", onclick: () => act("withdraw", "Withdrawn"), text: "Withdraw" }));
    if (organiser) actions.push(h("button", { type: "button", id: "t-start", onclick: () => act("start", "Started"),
      text: `Start with ${t.players} player${t.players === 1 ? "" : "s"}` }));
  }
  if (!player && t.status === "registration") actions.push(h("a", { href: "#/tournaments", text: "Register a name to take part." }));
  const current = t.rounds.length ? t.rounds[t.rounds.length - 1] : null;
  const myTable = mine && current && current.tables.find((x) => x.players.includes(player.id) && !x.ranks);
  root.replaceChildren(
    h("section", { class: "info", "aria-label": "tournament" },
      h("h1", { text: `${t.name || "Tournament"} · ${t.status}` }),
      h("p", { id: "t-summary" }, `${t.kind}, ${formatWords(t.format)}, ${t.seats} per table, `,
        t.format === "swiss" ? `${t.rounds_planned} round${t.rounds_planned === 1 ? "" : "s"} planned, ` : "", `round ${t.round}. ${t.players} registered. `,
        organiser ? "You organise it. " : "", mine ? `You are registered as ${mine.name}. ` : ""),
      myTable ? h("p", { class: "your-turn" }, h("a", { id: "t-my-game", href: `#/game/${myTable.game_id}`,
        text: `Your game: round ${current.round}, table ${myTable.table} — play it` })) : null,
      actions.length ? h("p", { class: "actions" }, ...actions) : null),
    h("section", { "aria-labelledby": "t-standings-h" }, h("h2", { id: "t-standings-h", text: "Standings" }), standingsTable(t, player)),
    h("section", { "aria-labelledby": "t-rounds-h", id: "t-rounds" }, h("h2", { id: "t-rounds-h", text: "Rounds" }),
      ...(t.rounds.length ? [...t.rounds].reverse().map((r) => roundSection(r, nameOf, player, t.duplicate)) : [h("p", { text: "Not paired yet." })])),
    h("p", { class: "seed" }, `Seed commitment ${t.seed_commitment}`, t.seed ? `; seed ${t.seed} (revealed)` : " (the seed is revealed at the end)"));
}

function standingsTable(t, player) {
  if (!t.standings.length) return h("p", { text: "Nobody has registered yet." });
  const LABELS = { buchholz: "Buchholz", median_buchholz: "Median Buchholz", sonneborn_berger: "Sonneborn–Berger",
    head_to_head: "Head-to-head", rating: "Rating" };
  const breaks = (t.tiebreaks || ["buchholz"]).map((name, i) => [name, i]).filter(([name]) => name !== "draw");
  const head = ["Place", "Player", "Points", ...breaks.map(([name]) => LABELS[name] || name), "Games", "Byes", ""]
    .map((x) => h("th", { scope: "col", text: x }));
  return h("div", { class: "scroll" }, h("table", { id: "t-standings", class: "standings" },
    h("thead", {}, h("tr", {}, ...head)),
    h("tbody", {}, ...t.standings.map((s) => h("tr", { "data-player": s.player_id, class: player && s.player_id === player.id ? "me" : "" },
      h("td", { text: String(s.place) }), h("th", { scope: "row", text: s.name }), h("td", { class: "points", text: String(s.points) }),
      ...breaks.map(([name, i]) => h("td", { class: `tb-${name}`, text: String(s.tiebreaks ? s.tiebreaks[i] : s.buchholz) })),
      h("td", { class: "games", text: String(s.games) }), h("td", { text: String(s.byes) }),
      h("td", { text: s.out ? "out" : s.active ? "" : "withdrawn" }))))));
}

function roundSection(r, nameOf, player, duplicate) {
  const mine = (x) => player && x.players.includes(player.id);
  const link = (x) => x.ranks ? "finished: see the game" : mine(x) ? "your game: play"
    : duplicate ? "sealed: opens when every table of the deal has ended" : "watch live";
  return h("section", { class: "round", "data-round": r.round, "aria-label": `round ${r.round}` },
    h("h3", { text: `Round ${r.round}` }),
    h("ol", { class: "tables" }, ...r.tables.map((x) => h("li", { "data-game": x.game_id, class: x.ranks ? "done" : "live" },
      `Table ${x.table}: `,
      x.players.map((pid, seat) => `${nameOf(pid)}${x.ranks ? ` (rank ${x.ranks[seat]}, ${x.points[seat]} pt)` : ""}`).join(" vs "),
      " — ", duplicate && !x.ranks && !mine(x) ? h("span", { class: "sealed", text: link(x) })
        : h("a", { href: `#/game/${x.game_id}`, text: link(x) })))),
    r.byes.length ? h("p", { text: `Bye: ${r.byes.map(nameOf).join(", ")}` }) : null);
}
