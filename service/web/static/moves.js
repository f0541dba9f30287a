/* The move list: the game's events, as the viewer may see them, in words, with the running score.

Each kind's phrases mirror the server's own (domain/<kind>/words.py, the view's `last.text`): the event that is
a command's own result, said as "<seat> <phrase>". Scorings and the table's events (seats taken, start,
resignation, the end) are lines too; events that only follow from a move (a tile drawn, a phase started) are not.
The running score is the view's `scores` at the end of each turn, from the views this page has seen (live or
in replay) or fetched once per turn end (`/versions/{n}`). */

import { get } from "./api.js";
import { h } from "./dom.js";

const PHRASES = {
  "tikal.TilePlaced": "placed tile {tile} at ({q}, {r})",
  "tikal.PieceEntered": "brought a piece into play at ({q}, {r})",
  "tikal.PieceMoved": "moved a piece from ({from_q}, {from_r}) to ({to_q}, {to_r}) for {cost} AP",
  "tikal.LevelUncovered": "uncovered level {value} of the temple at ({q}, {r})",
  "tikal.TreasureDug": "dug treasure {treasure} at ({q}, {r})",
  "tikal.TreasureTraded": "traded treasure {gave} for seat {other}'s {took}",
  "tikal.CampBuilt": "built a camp at ({q}, {r})",
  "tikal.GuardPlaced": "placed a guard on the temple at ({q}, {r})",
  "tikal.TurnEnded": "ended the turn",
  "tikal.BidMade": "bid {amount} points",
  "tikal.BidPassed": "passed in the auction",
  "tikal.TileTaken": "took tile {tile}",
  "tikal.PlayerScored": "scored {points} points",
  "coatl.OpeningHandKept": "kept the opening prophecies",
  "coatl.PiecesTaken": "took pieces from {slot} slot {index}",
  "coatl.PerfectChoiceUsed": "used Perfect Choice",
  "coatl.ProphecyTaken": "took a prophecy card from the {source}",
  "coatl.ForetellingUsed": "used Foretelling",
  "coatl.ProphecyDiscarded": "discarded a prophecy card",
  "coatl.PriestsDutyUsed": "used Priest's Duty",
  "coatl.CoatlStarted": "started a coatl",
  "coatl.PieceAdded": "added a piece to coatl {coatl}",
  "coatl.ProphecyPlayed": "played prophecy card {card} on coatl {coatl}",
  "coatl.TemplePlayed": "played temple card {temple} on coatl {coatl}",
  "coatl.CoatlClosed": "closed coatl {coatl}",
  "coatl.TurnEnded": "ended the turn",
  "tobago.AtvPlaced": "placed the ATV",
  "tobago.CluePlayed": "played a clue on map {map}",
  "tobago.HandExchanged": "exchanged {count} clue cards",
  "tobago.Drove": "drove {steps} step(s)",
  "tobago.TreasureCollected": "collected the treasure of map {map}",
  "tobago.CandidateRemoved": "removed a candidate hex from map {map}",
  "tobago.RoseDoubled": "doubled a rose on map {map}",
  "tobago.RosesSwapped": "swapped two roses on map {map}",
  "tobago.CardTaken": "took the offered treasure card",
  "tobago.CardPassed": "passed the offered treasure card",
  "tobago.TurnEnded": "ended the turn",
  "goldmine.TilePlaced": "placed a tile at ({x}, {y})",
  "goldmine.DiceRolled": "rolled {dice}",
  "goldmine.Stayed": "left {seat}'s pirate where it stood",
  "goldmine.PirateMoved": "moved {seat}'s pirate to ({x}, {y})",
  "goldmine.CoinTaken": "took a coin at ({x}, {y})",
  "goldmine.ChallengeResolved": "challenged {defender}: {winner} won",
  "goldmine.CoinPlaced": "placed {loser}'s coin at ({x}, {y})",
  "goldmine.CoinLeft": "left {loser}'s coin with it",
  "goldmine.CoinsPassed": "passed {amount} coin(s) to {to}",
  "goldmine.TurnEnded": "ended the turn",
};

const HOW = { resigned: "resigned", abandoned: "abandoned the game", timed_out: "ran out of time" };
const SEAT_FIELDS = new Set(["seat", "defender", "winner", "to", "other", "loser"]);

/** The seat that sent the command, as the server's phrases name it (domain/kernel.py `Phrase.sender`): `by`
 * where the event names one (Gold Mine's bats and bets act on another seat), else `seat`, else `challenger`. */
function actor(data) {
  for (const f of ["by", "seat", "challenger"]) if (Number.isInteger(data[f])) return data[f];
  return null;
}

function fill(phrase, data, names) {
  return phrase.replace(/\{(\w+)\}/g, (_, k) => {
    const v = data[k];
    if (v === null || v === undefined) return "hidden";
    if (SEAT_FIELDS.has(k) && Number.isInteger(v)) return names(v);
    return Array.isArray(v) ? v.join("+") : String(v);
  });
}

/** One event as a line {version, seat, text, kind: move|turn|score|table|end}, or null when it says nothing new. */
export function eventLine(event, names) {
  const d = event.data || {};
  const t = event.type;
  if (t === "table.SeatTaken") return { version: event.version, seat: d.seat, kind: "table", text: `${d.name} took seat ${d.seat}` };
  if (t === "table.GameStarted") return { version: event.version, seat: null, kind: "table", text: "The game started" };
  if (t === "table.SeatResigned") return { version: event.version, seat: d.seat, kind: "end", text: `${names(d.seat)} ${HOW[d.reason] || d.reason}` };
  if (t === "table.GameAborted") return { version: event.version, seat: null, kind: "end", text: `The game was called off (${d.reason})` };
  if (t === "table.GameEnded") return { version: event.version, seat: null, kind: "end", text: `Game over: ${outcomeLine(d.outcome, names)}` };
  const phrase = PHRASES[t];
  if (!phrase) return null;
  const seat = actor(d);
  const text = `${seat === null ? "" : `${names(seat)} `}${fill(phrase, d, names)}`;
  const kind = /TurnEnded$/.test(t) ? "turn" : /Scored$/.test(t) ? "score" : "move";
  return { version: event.version, seat, kind, text };
}

/** "Ann 34, Bob 20; Ann won" from an outcome. */
export function outcomeLine(o, names) {
  if (!o) return "no result";
  const scores = (o.scores || []).map((v, i) => `${names(i)} ${v}`).join(", ");
  const winners = (o.winners || []).map(names);
  const who = winners.length > 1 ? `${winners.join(" and ")} share the win` : winners.length ? `${winners[0]} won` : "nobody won";
  return `${scores}; ${who}`;
}

/** How a finished game ended, in words, from its outcome's details (and its end events). */
export function howItEnded(game, names, lines = []) {
  const d = (game.outcome && game.outcome.details) || {};
  if (game.status === "aborted") return (lines.find((l) => l.kind === "end") || { text: "The game was called off" }).text + ".";
  if (Number.isInteger(d.resigned)) return `${names(d.resigned)} ${HOW[d.reason] || "resigned"}: the game ended there.`;
  if (d.dead_cave) return "The cave is dead: no one can win any more, so the game ended (most coins first).";
  if (d.capped || d.max_rounds) return "The round limit was reached: the game ended (most coins first).";
  return "Played to the end.";
}

/** Every event of game `id` after `after`, as this viewer may see them (pages of 1000). */
export async function eventsAfter(id, after, asSeat = null) {
  const out = [];
  for (let from = after; ;) {
    const page = await get(`/v1/games/${id}/events?after=${from}${asSeat === null ? "" : `&as_seat=${asSeat}`}`);
    out.push(...page.events);
    if (!page.events.length || out[out.length - 1].version >= page.version) return out;
    from = out[out.length - 1].version;
  }
}

/** Keeps a game's lines and the scores seen at each version; fills a turn end's score once, lazily. */
export class MoveLog {
  constructor(id, names, seat = null) {
    this.id = id; this.names = names; this.seat = seat;
    this.events = []; this.lines = []; this.scores = new Map(); this.asked = new Set(); this.version = 0;
  }

  /** Fetch the events not yet read; true when there were new ones. Calls queue up: two at once would read
      the same events twice. */
  update(asSeat = null) {
    const run = (this.queue || Promise.resolve()).then(() => this.read(asSeat));
    this.queue = run.catch(() => false);
    return run;
  }

  async read(asSeat) {
    const fresh = (await eventsAfter(this.id, this.version, asSeat)).filter((e) => e.version > this.version);
    for (const e of fresh) this.add(e);
    return fresh.length > 0;
  }

  /** One more event (a live page's, from its stream); one already read is left out. */
  add(event) {
    if (event.version <= this.version) return;
    this.events.push(event);
    this.version = event.version;
    const line = eventLine(event, this.names);
    if (line) this.lines.push(line);
  }

  saw(version, view) {
    if (view && Array.isArray(view.scores)) this.scores.set(version, view.scores);
  }

  /** The view at `to` (a live page's, after a batch of events) gives the scores of the batch's turn ends
      after `from` that no scoring line follows in the batch: nothing changed them since. */
  settle(from, to, view) {
    this.saw(to, view);
    if (!view || !Array.isArray(view.scores)) return;
    const batch = this.lines.filter((l) => l.version > from && l.version <= to);
    batch.forEach((l, i) => {
      if (l.kind === "turn" && !this.scores.has(l.version) && !batch.slice(i + 1).some((m) => m.kind === "score" || m.kind === "end")) {
        this.scores.set(l.version, view.scores);
      }
    });
  }

  /** The last event of the kind's own (not the table's), for the board to mark. */
  lastMove() {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i];
      if (PHRASES[e.type] && !/TurnEnded$|Scored$/.test(e.type)) return e;
    }
    return null;
  }

  /** Ask for the scores at the newest turn ends this page has not seen (a few at a time); then `done()`. */
  async fillScores(done, most = 6) {
    const missing = this.lines.filter((l) => l.kind === "turn" && !this.scores.has(l.version) && !this.asked.has(l.version)).slice(-most);
    for (const l of missing) {
      this.asked.add(l.version);
      try {
        const at = await get(`/v1/games/${this.id}/versions/${l.version}${this.seat === null ? "" : `?seat=${this.seat}`}`);
        this.saw(l.version, at.view);
      } catch { /* the score stays unknown */ }
    }
    if (missing.length) done();
  }

  /** The list as an element: one item per line, newest last; lines after version `upto` are marked "future"
      (a replay shows the whole game); `onPick(version)` makes each line a button. */
  element(upto = Infinity, onPick = null) {
    const list = h("ol", { class: "move-list", "aria-label": "moves in words" }, ...this.lines.map((l) => {
      const score = this.scores.get(l.version);
      const known = score && score.some((v) => v !== null && v !== undefined);  // a kind may hide the scores
      const tail = (l.kind === "turn" || l.kind === "score") && known ? h("span", { class: "running", text: ` · ${score.map((v, i) => `${this.names(i)} ${v ?? "?"}`).join(", ")}` }) : null;
      const body = [h("span", { class: "v", text: `${l.version}` }), h("span", { class: "what" }, l.text, tail)];
      return h("li", { class: `move ${l.kind}${l.version > upto ? " future" : ""}`, "data-version": l.version },
        onPick ? h("button", { type: "button", class: "linklike", onclick: () => onPick(l.version) }, ...body) : body);
    }));
    return list;
  }
}
