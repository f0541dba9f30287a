/* Competitions: one list of every competition (tournaments of rounds and arenas, the formats of the one
competition model) and one form to organise one of any format.

Only the public API: /v1/tournaments and /v1/arenas (list, create). A competition's own page is competition.js. */

import { get, post, me, explain } from "./api.js";
import { h, status } from "./dom.js";
import { kindFields } from "./options.js";
import { registerForm, redraw } from "./lobby.js";

/** The formats, as the create form offers them: the formats of rounds, and the arena. */
export const FORMATS = [["swiss", "Swiss"], ["round_robin", "Round robin"], ["single_elimination", "Single elimination"],
  ["arena", "Arena"]];

export function formatWords(format) {
  return (FORMATS.find(([f]) => f === format) || [format, format])[1].toLowerCase();
}

/** Where a competition's page is: `#/tournament/<id>` for the formats of rounds, `#/arena/<id>` for an arena. */
export function pageOf(format, id) {
  return format === "arena" ? `#/arena/${id}` : `#/tournament/${id}`;
}

/** A list entry, whatever the format: id, name, kind, format, status, players, when (ms, for the order). */
function entries(tournaments, arenas) {
  return [
    ...tournaments.map((t) => ({ id: t.tournament_id, name: t.name || `${t.kind} tournament`, kind: t.kind,
      format: t.format, status: t.status, players: t.players, organiser: t.organiser, when: Date.parse(t.created_at) })),
    ...arenas.map((a) => ({ id: a.arena_id, name: a.name || `${a.kind} arena`, kind: a.kind, format: "arena",
      status: a.status, players: a.players, organiser: a.organiser, when: a.starts_at_ms })),
  ].sort((x, y) => y.when - x.when);
}

/** The competitions page: every competition, newest first (an arena by its start), and (signed in) the form to
organise one; `format` preselects the form's format (`#/arenas` asks for an arena). */
export async function showCompetitions(root, format = "swiss") {
  const player = me();
  const list = h("ul", { id: "competitions" });
  const refresh = async () => {
    try {
      const [tournaments, arenas] = await Promise.all([get("/v1/tournaments?limit=50"), get("/v1/arenas?limit=50")]);
      const items = entries(tournaments.items, arenas.items);
      list.replaceChildren(...items.map((c) => h("li", { "data-competition": c.id, "data-format": c.format },
        h("a", { href: pageOf(c.format, c.id), text: c.name }),
        ` — ${c.kind}, ${formatWords(c.format)}, ${c.players} player${c.players === 1 ? "" : "s"}, ${c.status}`,
        player && c.organiser === player.id ? " (yours)" : "")));
      if (!items.length) list.replaceChildren(h("li", { text: "No competition yet." }));
    } catch (err) { status(explain(err), true); }
  };
  const kinds = await get("/v1/kinds");
  root.replaceChildren(h("h1", { text: "Competitions" }), h("div", { class: "cards" },
    player ? createForm(kinds, format) : registerForm(redraw),
    h("section", { "aria-labelledby": "t-list-h" }, h("h2", { id: "t-list-h", text: "All competitions" }), list)));
  await refresh();
  const timer = setInterval(refresh, 5000);  // new competitions are on no stream
  return () => clearInterval(timer);
}

function field(id, label, attrs, help) {
  const input = h("input", { id, name: id, ...attrs, "aria-describedby": help ? `${id}-help` : undefined });
  return { input, el: h("div", { class: "field" }, h("label", { for: id, text: label }), input,
    help ? h("small", { id: `${id}-help`, text: help }) : null) };
}

const number = (id, label, value, min, max, help) => field(id, label, { type: "number", value, min, max }, help);

/** The one form: the fields every format shares, then those of the chosen format (the others hidden). */
function createForm(kinds, initial) {
  const f = kindFields(kinds, "t-");
  const name = field("t-name", "Name", { maxlength: 200 });
  const format = h("select", { id: "t-format", name: "format" }, ...FORMATS.map(([v, text]) => h("option", { value: v, text, selected: v === initial })));
  const rounds = number("t-rounds", "Rounds", 3, 0, 100, "Swiss rounds; round robin: 0 = every pair once");
  const advance = number("t-advance", "Go through per table", 1, 1, 5, "single elimination only");
  const late = number("t-late", "Late join until round", 0, 0, 100, "Swiss: 0 = registration closes at the start");
  const minGames = number("t-min-games", "Minimum rated games", 0, 0, 100000, "entry condition (0: none)");
  const ratingMin = number("t-rating-min", "Lowest rating", "", -1000, 10000, "entry condition (empty: none)");
  const ratingMax = number("t-rating-max", "Highest rating", "", -1000, 10000, "entry condition (empty: none)");
  const code = field("t-code-new", "Invitation code (optional)", { minlength: 4, maxlength: 64, autocomplete: "off" });
  const minutes = number("t-minutes", "Minutes", 30, 1, 1440, "how long the arena runs");
  const clock = number("t-clock", "Seconds per player (0: no clock)", 180, 0, 86400);
  const berserk = field("t-berserk", "Berserk allowed", { type: "checkbox", checked: true });
  const entry = h("fieldset", {}, h("legend", { text: "Entry conditions" }), minGames.el, ratingMin.el, ratingMax.el, code.el);
  const show = () => {
    const arena = format.value === "arena";
    rounds.el.hidden = arena || format.value === "single_elimination";
    advance.el.hidden = format.value !== "single_elimination";
    late.el.hidden = format.value !== "swiss";
    entry.hidden = arena;
    for (const x of [minutes, clock, berserk]) x.el.hidden = !arena;
  };
  format.addEventListener("change", show);
  show();
  const body = () => {
    const common = { kind: f.kind(), name: name.input.value.trim(), options: f.options(), seats: f.seats() };
    if (format.value === "arena") {
      const seconds = Number(clock.input.value);
      return { ...common, minutes: Number(minutes.input.value), berserk: seconds > 0 && berserk.input.checked,
        ...(seconds ? { time_control: { total_seconds: seconds } } : {}) };
    }
    const out = { ...common, format: format.value, rounds: Number(rounds.input.value) };
    if (format.value === "single_elimination") out.advance = Number(advance.input.value);
    if (format.value === "swiss" && Number(late.input.value)) out.late_join_until = Number(late.input.value);
    const conditions = {};
    if (Number(minGames.input.value)) conditions.min_rated_games = Number(minGames.input.value);
    if (ratingMin.input.value !== "") conditions.rating_min = Number(ratingMin.input.value);
    if (ratingMax.input.value !== "") conditions.rating_max = Number(ratingMax.input.value);
    if (Object.keys(conditions).length) out.entry = conditions;
    if (code.input.value.trim()) out.invitation_code = code.input.value.trim();
    return out;
  };
  return h("form", { class: "card", id: "t-create", onsubmit: async (ev) => {
    ev.preventDefault();
    const arena = format.value === "arena";
    try {
      const made = await post(arena ? "/v1/arenas" : "/v1/tournaments", body());
      location.hash = pageOf(format.value, arena ? made.arena_id : made.tournament_id);
    } catch (err) { status(explain(err), true); }
  } }, h("h2", { text: "Organise a competition" }),
  name.el, f.kindField, f.seatsField,
  h("div", { class: "field" }, h("label", { for: "t-format", text: "Format" }), format),
  rounds.el, advance.el, late.el, minutes.el, clock.el, berserk.el, f.optionsBox, entry,
  h("button", { type: "submit", text: "Create" }));
}
