/* The formats of rounds (Swiss, round robin, single elimination, duplicate) on the one competition page
(competition.js): their summary, moves and standings columns, the organiser's tools of rounds (pause, resume,
remove, forbidden pairings, annul, adjudicate), the crosstable, every round's tables and the report.

Only the public API: /v1/tournaments/{id} (register, withdraw, pause, resume, start, remove, forbidden-pairings,
games/{id}/annul|adjudicate, report) and the tournament's stream, whose frames are named by event type. */

import { h } from "./dom.js";
import { formatWords } from "./competitions.js";

const EVENTS = ["TournamentCreated", "PlayerRegistered", "PlayerWithdrew", "TournamentStarted", "RoundPaired",
  "ResultRecorded", "TournamentEnded", "SeedRevealed", "PlayerPaused", "PlayerResumed", "PlayerRemoved",
  "PairingForbidden", "ResultAnnulled", "ResultAdjudicated"].map((t) => `tournament.${t}`);
const LABELS = { buchholz: "Buchholz", median_buchholz: "Median Buchholz", sonneborn_berger: "Sonneborn–Berger",
  head_to_head: "Head-to-head", rating: "Rating" };

/** Whether players may still enter: before the start, or (Swiss) until the late-join round is paired. */
function entriesOpen(t) {
  return t.status === "registration" || (t.status === "running" && t.format === "swiss" && t.round < t.late_join_until);
}

const current = (t) => (t.rounds.length ? t.rounds[t.rounds.length - 1] : null);

export const ROUNDS = {
  title: () => "Tournament",
  entered: "registered",
  pausedNow: (s) => s.paused,
  summary: (t) => [`${t.kind}, ${formatWords(t.format)}, ${t.seats} per table, `,
    t.format === "swiss" ? `${t.rounds_planned} round${t.rounds_planned === 1 ? "" : "s"} planned, ` : "",
    `round ${t.round}. ${t.players} registered. `,
    t.late_join_until ? `Late entries until round ${t.late_join_until} is paired. ` : "", t.invitation ? "By invitation. " : ""],
  myGame(t, player, mine) {
    const round = current(t);
    const table = mine && round && round.tables.find((x) => x.players.includes(player.id) && !x.ranks);
    return table ? { id: table.game_id, text: `Your game: round ${round.round}, table ${table.table} — play it` } : null;
  },
  may(t, mine) {
    const swiss = t.format === "swiss" && t.status === "running" && mine && mine.active;
    return { enter: entriesOpen(t) && !mine, leave: mine && mine.active && t.status !== "finished",
      pause: swiss && !mine.paused, resume: swiss && mine.paused };
  },
  moves: (t) => ({ enter: ["register", t.status === "running" ? "Join late" : "Register", "Registered"],
    leave: ["withdraw", "Withdraw", "Withdrawn"], pause: ["pause", "Pause", "Paused: not paired from the next round"],
    resume: ["resume", "Resume", "Resumed: paired from the next round"] }),
  answersEntry: (what) => what === "register" || what === "withdraw",  // the player's entry, not the tournament
  startable: (t) => t.status === "registration",
  toolsOpen: (t) => t.status !== "finished",
  entriesOpen,
  tools,
  columns: (t) => (t.tiebreaks || ["buchholz"]).map((name, i) => [name, i]).filter(([name]) => name !== "draw")
    .map(([name, i]) => ({ title: LABELS[name] || name, class: `tb-${name}`, text: (s) => String(s.tiebreaks ? s.tiebreaks[i] : s.buchholz) })),
  after: [{ title: "Byes", class: "byes", text: (s) => String(s.byes) }],
  place: (s) => s.place,
  state: (s) => (s.removed ? "removed" : s.out ? "out" : !s.active ? "withdrawn" : s.paused ? "paused" : ""),
  follow: (source, draw, reload) => { for (const type of EVENTS) source.addEventListener(type, reload); },  // the server folds
  parts(t, player, organiser, act) {
    const names = new Map(t.standings.map((s) => [s.player_id, s.name]));
    const nameOf = (pid) => names.get(pid) || pid.slice(0, 8);
    const corrects = organiser && t.status === "running" && t.format !== "single_elimination" ? act : null;
    const base = `/v1/tournaments/${t.tournament_id}/report`;
    return [
      t.rounds.length ? h("section", { "aria-labelledby": "t-cross-h" }, h("h2", { id: "t-cross-h", text: "Crosstable" }),
        crosstable(t, player)) : null,
      h("section", { "aria-labelledby": "t-rounds-h", id: "t-rounds" }, h("h2", { id: "t-rounds-h", text: "Rounds" }),
        ...(t.rounds.length ? [...t.rounds].reverse().map((r) => roundSection(r, nameOf, player, t.duplicate, corrects))
          : [h("p", { text: "Not paired yet." })])),
      h("p", { class: "report" }, "Report: ", h("a", { id: "t-report-json", href: base, text: "JSON" }), ", ",
        h("a", { id: "t-report-standings", href: `${base}/csv?part=standings`, text: "standings (CSV)" }), ", ",
        h("a", { id: "t-report-pairings", href: `${base}/csv?part=pairings`, text: "pairings (CSV)" })),
    ];
  },
};

/** The organiser's tools of rounds: pause, resume or remove a player; forbid teammates to meet (Swiss). */
function tools(t, act) {
  const still = t.standings.filter((s) => s.active);
  const who = h("select", { id: "t-tool-player", "aria-label": "player" }, ...still.map((s) => h("option", { value: s.player_id, text: s.name })));
  const team = h("select", { id: "t-tool-team", multiple: true, size: Math.min(6, Math.max(2, still.length)), "aria-label": "teammates" },
    ...still.map((s) => h("option", { value: s.player_id, text: s.name })));
  const swiss = t.format === "swiss";
  const on = (what, words) => () => act(what, words, { player_id: who.value });
  return [
    still.length ? h("p", { class: "actions" }, who,
      swiss && t.status === "running" ? h("button", { type: "button", id: "t-tool-pause", onclick: on("pause", "Paused"), text: "Pause" }) : null,
      swiss && t.status === "running" ? h("button", { type: "button", id: "t-tool-resume", onclick: on("resume", "Resumed"), text: "Resume" }) : null,
      h("button", { type: "button", id: "t-tool-remove", onclick: on("remove", "Removed"), text: "Remove" })) : null,
    swiss && still.length > 1 ? h("p", { class: "actions" }, h("label", { for: "t-tool-team", text: "Teammates (not to meet): " }), team,
      h("button", { type: "button", id: "t-tool-forbid", text: "Forbid pairing", onclick: () => act("forbidden-pairings",
        "Forbidden pairing recorded", { players: [...team.selectedOptions].map((o) => o.value) }) })) : null,
    t.invitation || t.entry ? h("p", { text: entryWords(t) }) : null,
  ];
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
