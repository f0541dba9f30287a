/* The generic board, for a kind without a drawer of its own: drawn from the caller's view (the envelope
{kind, seat, phase, to_act, scores, ...kind fields}) and the kind's component catalogue.

It shows the phase, whose turn it is and each seat's score, then every other field of the view as a
labelled panel: objects and lists are framed groups, and a component the view names by its id is shown
with its printed data from the catalogue (`load(kind)` fetches the catalogue once, before drawing).
Each legal command with fields is a button of its own under its type ("moves"); a command without
fields goes to the action bar, as on every board. Nothing the view holds makes it throw. */

import { get } from "../api.js";
import { s, drawing, SEAT_COLOURS } from "../dom.js";
import { commandWords, plainCommand, typeWords } from "../words.js";

const W = 640, PAD = 10, LINE = 21, FONT = 14, INDENT = 16;
const CHAR = FONT * 0.6;  // a generous width per character, for wrapping
const MAX_ROWS = 400, MAX_DEPTH = 6;
const ENVELOPE = ["kind", "seat", "phase", "to_act", "scores"];
const catalogues = new Map();  // kind -> Map(component id -> its printed data)

/** Fetch `kind`'s component catalogue once; without it (an error) the board is drawn from the view alone. */
export async function load(kind) {
  if (catalogues.has(kind)) return;
  let index = new Map();
  try {
    index = indexed(await get(`/v1/kinds/${encodeURIComponent(kind)}/components`));
  } catch { /* drawn without printed data */ }
  catalogues.set(kind, index);
}

/** Every object of the catalogue that has an `id`, by that id (the first one wins). */
function indexed(catalogue) {
  const index = new Map();
  const walk = (v, depth) => {
    if (depth > 8 || v === null || typeof v !== "object") return;
    if (!Array.isArray(v) && (typeof v.id === "string" || typeof v.id === "number") && !index.has(String(v.id))) index.set(String(v.id), v);
    for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(catalogue, 0);
  return index;
}

function moveKey(c) {
  return `move:${commandWords(c)}`.replace(/"/g, "'");
}

/** The click path of a command: its own button among the moves; none for a plain one (the action bar's). */
export function keys(c) {
  try {
    return c && typeof c === "object" && !plainCommand(c) ? [moveKey(c)] : null;
  } catch {
    return null;
  }
}

const words = (key) => String(key).replace(/_/g, " ");

function scalarText(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

const isScalar = (v) => v === null || typeof v !== "object";

/** Cut `text` into lines that fit from x to the right edge. */
function wrap(text, x) {
  const width = Math.max(8, Math.floor((W - PAD - x) / CHAR));
  const out = [];
  for (let rest = String(text); rest.length || !out.length;) {
    if (rest.length <= width) { out.push(rest); break; }
    const cut = rest.lastIndexOf(" ", width);
    const at = cut > width / 2 ? cut : width;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  return out;
}

/** A top-to-bottom layout: a cursor, the drawn parts, and the summary lines in words. */
class Panel {
  constructor() { this.y = PAD; this.els = []; this.lines = []; this.rows = 0; }

  text(x, content, cls = "generic-text", size = FONT) {
    for (const part of wrap(content, x)) {
      this.els.push(s("text", { x, y: this.y + size, class: cls, "font-size": size, text: part }));
      this.y += Math.max(LINE, size + 7);
      this.rows += 1;
    }
  }

  /** A framed group: its title, then what `body` draws, inside one box. */
  group(depth, title, cls, body) {
    const x = PAD + depth * INDENT, at = this.els.length, top = this.y;
    this.text(x + 6, title, "generic-label");
    body();
    this.y += 4;
    this.els.splice(at, 0, s("rect", { x, y: top, width: W - PAD - x, height: this.y - top, rx: 5, class: `generic-group ${cls}` }));
    this.y += 4;
  }
}

/** The printed data of a scalar the view names by id, if the catalogue has it. */
function component(key, value, ctx) {
  if (ctx.plainOnly || value === null || value === undefined || key === "id") return null;  // an object's own id
  const idLike = typeof value === "string" || [key, ctx.listKey].some((k) => /(^|_)ids?$/.test(String(k || "")));
  return idLike && (typeof value === "string" || typeof value === "number") ? ctx.catalogue.get(String(value)) || null : null;
}

/** One field of the view (any shape) at `depth`, named `label`, with its lines in words under `path`. */
function field(p, depth, label, value, ctx, path) {
  if (p.rows >= MAX_ROWS) {
    if (!p.cut) { p.cut = true; p.text(PAD, "… more is not shown here: see the legal list and the text below."); }
    return;
  }
  const x = PAD + depth * INDENT + 6;
  if (isScalar(value)) {
    const printed = component(label, value, ctx);
    if (!printed) { p.text(x, `${words(label)}: ${scalarText(value)}`); p.lines.push(`${path}: ${scalarText(value)}`); return; }
    p.lines.push(`${path}: ${value} (${printedWords(printed)})`);
    p.group(depth, `${words(label)}: ${value}`, "generic-component", () => fields(p, depth + 1, printed, { ...ctx, plainOnly: true }, null, ["id"]));
    return;
  }
  if (depth >= MAX_DEPTH) {
    const text = JSON.stringify(value);
    p.text(x, `${words(label)}: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}`);
    p.lines.push(`${path}: ${text}`);
    return;
  }
  if (Array.isArray(value)) {
    const inList = { ...ctx, listKey: label };
    if (value.every((v) => isScalar(v) && !component(label, v, inList))) {
      const text = value.length ? value.map(scalarText).join(", ") : "none";
      p.text(x, `${words(label)}: ${text}`);
      p.lines.push(`${path}: ${text}`);
      return;
    }
    p.group(depth, `${words(label)} (${value.length})`, "generic-list", () => value.forEach((item, i) =>
      field(p, depth + 1, itemLabel(item, i, ctx), item, inList, `${path} ${itemLabel(item, i, ctx)}`)));
    return;
  }
  const id = isScalar(value.id) && value.id !== null && value.id !== undefined ? String(value.id) : null;
  const printed = id !== null && !ctx.plainOnly && ctx.catalogue.has(id);  // its printed data is inline already
  p.group(depth, id !== null && id !== label ? `${words(label)}: ${id}` : words(label), printed ? "generic-component" : "generic-object", () => fields(p, depth + 1, value, { ...ctx, listKey: null }, path));
}

function fields(p, depth, obj, ctx, path, skip = []) {
  const entries = Object.entries(obj).filter(([k]) => !skip.includes(k));
  if (!entries.length) p.text(PAD + depth * INDENT + 6, "(empty)");
  for (const [k, v] of entries) field(p, depth, k, v, ctx, path ? `${path} ${words(k)}` : words(k));
}

function itemLabel(item, i, ctx) {
  if (item && typeof item === "object" && Number.isInteger(item.seat)) return ctx.names(item.seat);
  if (item && typeof item === "object" && (typeof item.id === "string" || typeof item.id === "number")) return String(item.id);
  return `#${i}`;
}

function printedWords(printed) {
  return Object.entries(printed).filter(([k]) => k !== "id")
    .map(([k, v]) => `${words(k)} ${isScalar(v) ? scalarText(v) : JSON.stringify(v)}`).join(", ");
}

/** The seats as chips: colour, name, score; the seats to act ringed. */
function seats(p, view, ui) {
  const scores = Array.isArray(view.scores) ? view.scores : [];
  const toAct = Array.isArray(view.to_act) ? view.to_act : [];
  const count = Math.max(Number.isInteger(ui.seats) ? ui.seats : 0, scores.length);
  let x = PAD;
  for (let seat = 0; seat < count; seat++) {
    const label = `${ui.names(seat)}: ${seat < scores.length ? scalarText(scores[seat]) : "—"}${toAct.includes(seat) ? " ◀ to act" : ""}`;
    const w = Math.min(W - 2 * PAD, label.length * CHAR + 34);
    if (x + w > W - PAD && x > PAD) { x = PAD; p.y += 34; }
    p.els.push(s("g", { class: `generic-seat${toAct.includes(seat) ? " acting" : ""}` }, s("title", { text: label }),
      s("rect", { x, y: p.y, width: w, height: 28, rx: 14, class: "generic-chip" }),
      s("circle", { cx: x + 14, cy: p.y + 14, r: 7, fill: SEAT_COLOURS[seat % SEAT_COLOURS.length], class: "piece" }),
      s("text", { x: x + 27, y: p.y + 19, class: "generic-text", "font-size": FONT, text: label })));
    x += w + 6;
  }
  if (count) p.y += 40;
  p.lines.push(`Scores: ${scores.length ? scores.map((v, i) => `${ui.names(i)} ${scalarText(v)}`).join(", ") : "none"}.`);
}

/** The legal commands that have fields, one button each, in rows under their type. */
function moves(p, commands) {
  const byType = new Map();
  for (const c of commands) if (c && typeof c === "object" && keys(c)) byType.set(c.type, [...(byType.get(c.type) || []), c]);
  if (!byType.size) return;
  p.text(PAD, "Your moves (click one):", "generic-label");
  for (const [type, list] of byType) {
    p.text(PAD + 6, `${typeWords(type)}:`);
    let x = PAD + 6;
    for (const c of list) {
      const full = commandWords(c), short = full.slice(full.indexOf(":") + 1).trim() || full;
      const label = short.length > 60 ? `${short.slice(0, 59)}…` : short;
      const w = Math.min(W - 2 * PAD - 6, label.length * CHAR + 20);
      if (x + w > W - PAD && x > PAD + 6) { x = PAD + 6; p.y += 34; }
      p.els.push(s("g", { "data-key": moveKey(c), class: "action generic-move" }, s("title", { text: full }),
        s("rect", { x, y: p.y, width: w, height: 28, rx: 6, class: "action-button" }),
        s("text", { x: x + w / 2, y: p.y + 19, class: "action-text", "font-size": FONT, text: label })));
      x += w + 6;
    }
    p.y += 38;
  }
}

/** The board of any kind: {svg, summary}. */
export function draw(view, ui) {
  ui = ui || {};
  const names = (seat) => { try { return String(ui.names ? ui.names(seat) : `seat ${seat}`); } catch { return `seat ${seat}`; } };
  const v = view && typeof view === "object" && !Array.isArray(view) ? view : { value: view };
  const kind = typeof v.kind === "string" ? v.kind : "game";
  try {
    const p = new Panel();
    const ctx = { names, catalogue: catalogues.get(kind) || new Map() };
    const toAct = Array.isArray(v.to_act) ? v.to_act : [];
    const turn = toAct.length ? toAct.map(names).join(", ") : "nobody";
    p.text(PAD, `${typeWords(kind)} · phase ${scalarText(v.phase)}`, "generic-title", 18);
    p.text(PAD, `To act: ${turn}. ${Number.isInteger(v.seat) ? `You are ${names(v.seat)}.` : "You are watching."}`);
    p.lines.push(`Phase ${scalarText(v.phase)}; to act: ${turn}.`);
    seats(p, v, { ...ui, names });
    moves(p, Array.isArray(ui.commands) ? ui.commands : []);
    const rest = Object.fromEntries(Object.entries(v).filter(([k]) => !ENVELOPE.includes(k)));
    if (Object.keys(rest).length) fields(p, 0, rest, ctx, "");
    const label = `${typeWords(kind)} board (generic): phase ${scalarText(v.phase)}, to act ${turn}`;
    const svg = drawing(label, `0 0 ${W} ${p.y + PAD}`, ...p.els);
    svg.setAttribute("class", "board generic");
    return { svg, summary: p.lines };
  } catch (err) {  // a shape nobody foresaw: the view as text, still a board
    const p = new Panel();
    p.text(PAD, `${typeWords(kind)}: this view could not be drawn (${err && err.message}).`);
    let text = "";
    try { text = JSON.stringify(view); } catch { text = String(view); }
    p.text(PAD, text.length > 4000 ? `${text.slice(0, 3999)}…` : text);
    const svg = drawing(`${kind} board (as text)`, `0 0 ${W} ${p.y + PAD}`, ...p.els);
    svg.setAttribute("class", "board generic");
    return { svg, summary: [text] };
  }
}
