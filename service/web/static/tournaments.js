/* Tournaments: the list and the create form, and one tournament's standings, crosstable, rounds and live tables,
with the organiser's tools (add bots, pause, resume, remove, forbidden pairings, annul, adjudicate, the report).

Only the public API: /v1/tournaments (list, create, get, register, withdraw, start, bots, pause, resume, remove,
forbidden-pairings, games/{id}/annul|adjudicate, report) and the tournament's Server-Sent Events stream,
whose frames are named by type (a snapshot first, then each event). */

import { get, post, me, explain } from "./api.js";
import { h, redrawKeepingFields, status } from "./dom.js";
import { kindFields } from "./options.js";
import { registerForm, redraw } from "./lobby.js";

const FORMATS = [["swiss", "Swiss"], ["round_robin", "Round robin"], ["single_elimination", "Single elimination"]];
const EVENTS = ["TournamentCreated", "PlayerRegistered", "PlayerWithdrew", "TournamentStarted", "RoundPaired",
  "ResultRecorded", "TournamentEnded", "SeedRevealed", "PlayerPaused", "PlayerResumed", "PlayerRemoved",
  "PairingForbidden", "ResultAnnulled", "ResultAdjudicated"].map((t) => `tournament.${t}`);

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
  root.replaceChildren(h("h1", { text: "Tournaments" }), h("div", { class: "cards" },
    player ? createForm(kinds) : registerForm(redraw),
    h("section", { "aria-labelledby": "t-list-h" }, h("h2", { id: "t-list-h", text: "All tournaments" }), list)));
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
  const late = numberField("t-late", "Late join until round", 0, 0, 100, "Swiss: 0 = registration closes at the start");
  const minGames = numberField("t-min-games", "Minimum rated games", 0, 0, 100000, "entry condition (0: none)");
  const ratingMin = numberField("t-rating-min", "Lowest rating", "", -1000, 10000, "entry condition (empty: none)");
  const ratingMax = numberField("t-rating-max", "Highest rating", "", -1000, 10000, "entry condition (empty: none)");
  const code = h("input", { id: "t-code-new", name: "invitation_code", minlength: 4, maxlength: 64, autocomplete: "off" });
  const showAdvance = () => {
    advance.el.hidden = format.value !== "single_elimination";
    late.el.hidden = format.value !== "swiss";
  };
  format.addEventListener("change", showAdvance);
  showAdvance();
  return h("form", { class: "card", id: "t-create", onsubmit: async (ev) => {
    ev.preventDefault();
    const body = { kind: f.kind(), name: name.value.trim(), options: f.options(), seats: f.seats(), format: format.value,
      rounds: Number(rounds.input.value) };
    if (format.value === "single_elimination") body.advance = Number(advance.input.value);
    if (format.value === "swiss" && Number(late.input.value)) body.late_join_until = Number(late.input.value);
    const entry = {};
    if (Number(minGames.input.value)) entry.min_rated_games = Number(minGames.input.value);
    if (ratingMin.input.value !== "") entry.rating_min = Number(ratingMin.input.value);
    if (ratingMax.input.value !== "") entry.rating_max = Number(ratingMax.input.value);
    if (Object.keys(entry).length) body.entry = entry;
    if (code.value.trim()) body.invitation_code = code.value.trim();
    try {
      const t = await post("/v1/tournaments", body);
      location.hash = `#/tournament/${t.tournament_id}`;
    } catch (err) { status(explain(err), true); }
  } }, h("h2", { text: "Organise a tournament" }),
  h("div", { class: "field" }, h("label", { for: "t-name", text: "Name" }), name),
  f.kindField, f.seatsField,
  h("div", { class: "field" }, h("label", { for: "t-format", text: "Format" }), format),
  rounds.el, advance.el, late.el, f.optionsBox,
  h("fieldset", {}, h("legend", { text: "Entry conditions" }), minGames.el, ratingMin.el, ratingMax.el,
    h("div", { class: "field" }, h("label", { for: "t-code-new", text: "Invitation code (optional)" }), code)),
  h("button", { type: "submit", text: "Create tournament" }));
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
  const act = async (what, words, body = {}) => {
    const n = ++asked;
    try {
      const view = await post(`/v1/tournaments/${id}/${what}`, body);
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
  const current = t.rounds.length ? t.rounds[t.rounds.length - 1] : null;
  const myTable = mine && current && current.tables.find((x) => x.players.includes(player.id) && !x.ranks);
  redrawKeepingFields(root,
    h("section", { class: "info", "aria-label": "tournament" },
      h("h1", { text: `${t.name || "Tournament"} · ${t.status}` }),
      h("p", { id: "t-summary" }, `${t.kind}, ${formatWords(t.format)}, ${t.seats} per table, `,
        t.format === "swiss" ? `${t.rounds_planned} round${t.rounds_planned === 1 ? "" : "s"} planned, ` : "", `round ${t.round}. ${t.players} registered. `,
        t.late_join_until ? `Late entries until round ${t.late_join_until} is paired. ` : "",
        t.invitation ? "By invitation. " : "", organiser ? "You organise it. " : "",
        mine ? `You are registered as ${mine.name}${mine.paused ? " (paused)" : ""}. ` : ""),
      myTable ? h("p", { class: "your-turn" }, h("a", { id: "t-my-game", href: `#/game/${myTable.game_id}`,
        text: `Your game: round ${current.round}, table ${myTable.table} — play it` })) : null,
      actionBar(t, player, mine, organiser, act)),
    h("section", { "aria-labelledby": "t-standings-h" }, h("h2", { id: "t-standings-h", text: "Standings" }), standingsTable(t, player)),
    t.rounds.length ? h("section", { "aria-labelledby": "t-cross-h" }, h("h2", { id: "t-cross-h", text: "Crosstable" }),
      crosstable(t, player)) : null,
    organiser && t.status !== "finished" ? tools(t, nameOf, act) : null,
    h("section", { "aria-labelledby": "t-rounds-h", id: "t-rounds" }, h("h2", { id: "t-rounds-h", text: "Rounds" }),
      ...(t.rounds.length ? [...t.rounds].reverse().map((r) => roundSection(r, nameOf, player, t.duplicate,
        organiser && t.status === "running" && t.format !== "single_elimination" ? act : null)) : [h("p", { text: "Not paired yet." })])),
    h("p", { class: "report" }, "Report: ", h("a", { id: "t-report-json", href: `/v1/tournaments/${t.tournament_id}/report`, text: "JSON" }), ", ",
      h("a", { id: "t-report-standings", href: `/v1/tournaments/${t.tournament_id}/report/csv?part=standings`, text: "standings (CSV)" }), ", ",
      h("a", { id: "t-report-pairings", href: `/v1/tournaments/${t.tournament_id}/report/csv?part=pairings`, text: "pairings (CSV)" })),
    h("p", { class: "seed" }, `Seed commitment ${t.seed_commitment}`, t.seed ? `; seed ${t.seed} (revealed)` : " (the seed is revealed at the end)"));
}

/** What the viewer may do now: register (with the invitation code when asked), withdraw, pause, start. */
function actionBar(t, player, mine, organiser, act) {
  const actions = [];
  const open = entriesOpen(t);
  if (!player) {
    if (open) actions.push(h("a", { href: "#/tournaments", text: "Register a name to take part." }));
    return actions.length ? h("p", { class: "actions" }, ...actions) : null;
  }
  if (open && !mine) {
    const code = t.invitation ? h("input", { id: "t-code", "aria-label": "invitation code", placeholder: "invitation code", maxlength: 64 }) : null;
    if (code) actions.push(code);
    actions.push(h("button", { type: "button", id: "t-register", text: t.status === "running" ? "Join late" : "Register",
      onclick: () => act("register", "Registered", code && code.value.trim() ? { code: code.value.trim() } : {}) }));
  }
  if (mine && mine.active && t.status !== "finished") {
    actions.push(h("button", { type: "button", id: "t-withdraw", onclick: () => act("withdraw", "Withdrawn"), text: "Withdraw" }));
    if (t.format === "swiss" && t.status === "running") actions.push(mine.paused
      ? h("button", { type: "button", id: "t-resume", onclick: () => act("resume", "Resumed: paired from the next round"), text: "Resume" })
      : h("button", { type: "button", id: "t-pause", onclick: () => act("pause", "Paused: not paired from the next round"), text: "Pause" }));
  }
  if (organiser && t.status === "registration") {
    const short = t.players < t.min_players;  // the server refuses it too (409 tournament.too_few_players)
    actions.push(h("button", { type: "button", id: "t-start", disabled: short || undefined, onclick: () => act("start", "Started"),
      text: short ? `Start (needs ${t.min_players} players, ${t.players} registered)` : `Start with ${t.players} player${t.players === 1 ? "" : "s"}` }));
  }
  return actions.length ? h("p", { class: "actions" }, ...actions) : null;
}

/** Whether players may still enter: before the start, or (Swiss) until the late-join round is paired. */
function entriesOpen(t) {
  return t.status === "registration" || (t.status === "running" && t.format === "swiss" && t.round < t.late_join_until);
}

/** The organiser adds bots (POST /v1/tournaments/{id}/bots, or an arena's with prefix "a"): how many, which
strategy, how strong; `act(what, words, body)` sends it. */
export function addBots(act, prefix = "t") {
  const count = h("input", { id: `${prefix}-bots-count`, type: "number", min: 1, max: 64, value: 2, "aria-label": "bots to add" });
  const strategy = h("select", { id: `${prefix}-bots-strategy`, "aria-label": "bot strategy" },
    h("option", { value: "greedy", text: "Greedy (reads the board)" }), h("option", { value: "random", text: "Random" }));
  const strength = h("input", { id: `${prefix}-bots-strength`, type: "number", min: 1, max: 5, value: 3, "aria-label": "bot strength (1–5)" });
  const add = () => act("bots", `Bots added (${count.value})`,
    { count: Number(count.value), strategy: strategy.value, strength: Number(strength.value) });
  return h("p", { class: "actions", id: `${prefix}-bots` }, h("label", { for: `${prefix}-bots-count`, text: "Add bots: " }), count, strategy,
    h("label", { for: `${prefix}-bots-strength`, text: " strength " }), strength,
    h("button", { type: "button", id: `${prefix}-bots-add`, onclick: add, text: "Add bots" }));
}

/** The organiser's tools: add bots; pause, resume or remove a player; forbid teammates to meet (Swiss). */
function tools(t, nameOf, act) {
  const still = t.standings.filter((s) => s.active);
  const who = h("select", { id: "t-tool-player", "aria-label": "player" }, ...still.map((s) => h("option", { value: s.player_id, text: s.name })));
  const team = h("select", { id: "t-tool-team", multiple: true, size: Math.min(6, Math.max(2, still.length)), "aria-label": "teammates" },
    ...still.map((s) => h("option", { value: s.player_id, text: s.name })));
  const swiss = t.format === "swiss";
  const on = (what, words) => () => act(what, words, { player_id: who.value });
  return h("section", { id: "t-tools", "aria-labelledby": "t-tools-h" }, h("h2", { id: "t-tools-h", text: "Organiser's tools" }),
    entriesOpen(t) ? addBots(act) : null,
    still.length ? h("p", { class: "actions" }, who,
      swiss && t.status === "running" ? h("button", { type: "button", id: "t-tool-pause", onclick: on("pause", "Paused"), text: "Pause" }) : null,
      swiss && t.status === "running" ? h("button", { type: "button", id: "t-tool-resume", onclick: on("resume", "Resumed"), text: "Resume" }) : null,
      h("button", { type: "button", id: "t-tool-remove", onclick: on("remove", "Removed"), text: "Remove" })) : null,
    swiss && still.length > 1 ? h("p", { class: "actions" }, h("label", { for: "t-tool-team", text: "Teammates (not to meet): " }), team,
      h("button", { type: "button", id: "t-tool-forbid", text: "Forbid pairing", onclick: () => act("forbidden-pairings",
        "Forbidden pairing recorded", { players: [...team.selectedOptions].map((o) => o.value) }) })) : null,
    t.invitation || t.entry ? h("p", { text: entryWords(t) }) : null);
}

function entryWords(t) {
  const e = t.entry || {};
  const parts = [];
  if (e.min_rated_games) parts.push(`at least ${e.min_rated_games} rated games`);
  if (e.rating_min != null || e.rating_max != null) parts.push(`rating ${e.rating_min ?? "…"}–${e.rating_max ?? "…"}`);
  if (t.invitation) parts.push("an invitation (listed, or the code)");
  return `Entry: ${parts.join(", ")}. You may register anyone yourself.`;
}

/** Every player's rounds: for each, the points scored and the places of whoever shared the table. */
function crosstable(t, player) {
  const place = new Map(t.standings.map((s) => [s.player_id, s.place]));
  const cell = (pid, r) => {
    if (r.byes.includes(pid)) return `bye ${r.bye_points ?? ""}`.trim();
    const x = r.tables.find((tb) => tb.players.includes(pid));
    if (!x) return "–";
    const others = x.players.filter((o) => o !== pid).map((o) => `#${place.get(o)}`).join(" ");
    if (x.status === "annulled") return `annulled (${others})`;
    if (!x.ranks) return `… ${others}`;
    return `${x.points[x.players.indexOf(pid)]} ${others}`;
  };
  return h("div", { class: "scroll" }, h("table", { id: "t-crosstable", class: "standings" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "#" }), h("th", { scope: "col", text: "Player" }),
      ...t.rounds.map((r) => h("th", { scope: "col", text: `R${r.round}` })), h("th", { scope: "col", text: "Points" }))),
    h("tbody", {}, ...t.standings.map((s) => h("tr", { "data-player": s.player_id, class: player && s.player_id === player.id ? "me" : "" },
      h("td", { text: String(s.place) }), h("th", { scope: "row", text: s.name }),
      ...t.rounds.map((r) => h("td", { "data-round": r.round, text: cell(s.player_id, r) })),
      h("td", { text: String(s.points) }))))));
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
      h("td", { class: "state", text: s.removed ? "removed" : s.out ? "out" : !s.active ? "withdrawn" : s.paused ? "paused" : "" }))))));
}

function roundSection(r, nameOf, player, duplicate, act) {
  const mine = (x) => player && x.players.includes(player.id);
  const link = (x) => x.status === "annulled" ? "annulled" : x.ranks ? "finished: see the game" : mine(x) ? "your game: play"
    : duplicate ? "sealed: opens when every table of the deal has ended" : "watch live";
  const correct = (x) => {
    if (!act) return null;
    const ranks = h("input", { class: "t-ranks", "aria-label": `ranks at table ${x.table}, seat order`, placeholder: x.players.map((_, i) => i + 1).join(","), size: 8 });
    return h("span", { class: "t-correct" }, " ",
      x.status !== "annulled" ? h("button", { type: "button", class: "t-annul", text: "Annul",
        onclick: () => act(`games/${x.game_id}/annul`, `Table ${x.table} annulled`) }) : null, " ", ranks,
      h("button", { type: "button", class: "t-adjudicate", text: "Adjudicate", onclick: () => act(`games/${x.game_id}/adjudicate`,
        `Table ${x.table} adjudicated`, { ranks: ranks.value.split(/[ ,]+/).filter(Boolean).map(Number) }) }));
  };
  return h("section", { class: "round", "data-round": r.round, "aria-label": `round ${r.round}` },
    h("h3", { text: `Round ${r.round}` }),
    h("ol", { class: "tables" }, ...r.tables.map((x) => h("li", { "data-game": x.game_id, "data-status": x.status || "", class: x.ranks || x.status === "annulled" ? "done" : "live" },
      `Table ${x.table}: `,
      x.players.map((pid, seat) => `${nameOf(pid)}${x.ranks ? ` (rank ${x.ranks[seat]}, ${x.points[seat]} pt)` : ""}`).join(" vs "),
      x.status === "adjudicated" ? " (adjudicated)" : "",
      " — ", duplicate && !x.ranks && !mine(x) ? h("span", { class: "sealed", text: link(x) })
        : h("a", { href: `#/game/${x.game_id}`, text: link(x) }), correct(x)))),
    r.byes.length ? h("p", { text: `Bye: ${r.byes.map(nameOf).join(", ")}` }) : null);
}
