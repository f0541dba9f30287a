/* Tikal: the jungle of hexes from the component catalogue (its fixed outline of spaces), each placed tile with
its terrain, path stones, temple and its visible level, treasure masks, camps, guards, and the pieces by colour
and rank (explorers as discs with a count, the leader as a crowned pawn). The tile in hand is drawn turned,
with a ghost on every space it may go; the last move is ringed. */

import { get } from "../api.js";
import { s, drawing, hexPoints, axial, SEAT_COLOURS } from "../dom.js";

const SIZE = 48;
export const ROTATIONS = 6;
const FILL = { jungle: "#6fae5b", temple: "#b9b2a1", ruins: "#cfa869", clearing: "#9fcd83", volcano: "#b5452f",
  camp: "#e8dcc0", base_camp: "#e6d6ae" };
let catalogue = null;

/** Fetch the component catalogue once (the board's outline); drawn without it on an error. */
export async function load() {
  if (catalogue) return;
  try { catalogue = await get("/v1/kinds/tikal/components"); } catch { catalogue = { board_spaces: [] }; }
}

/** The click path of a command: a piece from the supply then a camp, a piece (the leader apart) then its
    destination, the ghost of the tile in hand at a space and rotation, or the hex an action happens on. */
export function keys(c) {
  const t = c.type.split(".")[1];
  if (t === "PlaceTile") return [`place:${c.q},${c.r},${c.rotation}`];
  if (t === "EnterPiece") return [`supply:${c.leader ? "leader" : "explorer"}`, `${c.q},${c.r}`];
  if (t === "MovePiece" || t === "CampMove") return [`${c.leader ? "leader:" : ""}${c.from_q},${c.from_r}`, `${c.to_q},${c.to_r}`];
  if ("q" in c && "r" in c) return [`${c.q},${c.r}`];
  return null;
}

/** Stones turned `rotation` steps clockwise (new[i] = old[i - 1] per step). */
export function turnedStones(stones, rotation) {
  return stones.map((_, i) => stones[(i - rotation + 6 * 6) % 6]);
}

function stoneMarks(x, y, counts) {
  const out = [];
  counts.forEach((n, e) => {
    const a = (-90 + 60 * e) * Math.PI / 180;
    for (let i = 0; i < n; i++) {
      const off = (i - (n - 1) / 2) * 10, d = SIZE * 0.74;
      out.push(s("rect", { x: x + d * Math.cos(a) - off * Math.sin(a) - 4, y: y + d * Math.sin(a) + off * Math.cos(a) - 4,
        width: 8, height: 8, rx: 1.5, class: "stone" }));
    }
  });
  return out;
}

/** A stepped pyramid of `value` levels, its number on top. */
function temple(x, y, value, guard) {
  const steps = Math.min(value, 6), parts = [];
  for (let i = 0; i < steps; i++) {
    const w = 40 - i * 5;
    parts.push(s("rect", { x: x - w / 2, y: y + 6 - i * 5, width: w, height: 5, class: "temple-step" }));
  }
  parts.push(s("text", { x, y: y + 4 - steps * 5, class: "temple-value", text: String(value) }));
  if (guard !== null && guard !== undefined) parts.push(s("path", { d: `M${x + 12} ${y - 30} h18 v12 l-9 8 l-9 -8 z`, fill: SEAT_COLOURS[guard], class: "guard" }));
  return parts;
}

/** The terrain of a tile: its fill, stones and emblem (temple, masks, volcano, base camp). */
function terrain(x, y, t, kind, stones, value, tokens, guard) {
  const parts = [s("polygon", { points: hexPoints(x, y, SIZE - 1), fill: FILL[kind] || "#ddd", class: `hex ${kind}` }), ...stoneMarks(x, y, stones)];
  if (kind === "temple") parts.push(...temple(x, y - 10, value, guard));
  if (kind === "ruins") {
    for (let i = 0; i < tokens; i++) parts.push(s("circle", { cx: x - 8.5 * (tokens - 1) + 17 * i, cy: y - 20, r: 8, class: "mask" }));
    parts.push(s("text", { x, y: y - 2, class: "hex-label", text: `${tokens} ✦` }));
  }
  if (kind === "volcano") parts.push(s("path", { d: `M${x - 22} ${y + 8} l12 -22 h20 l12 22 z`, class: "volcano" }), s("path", { d: `M${x - 4} ${y - 14} q4 -10 8 0`, class: "lava" }));
  if (kind === "base_camp") parts.push(s("text", { x, y: y - 14, class: "hex-label", text: "base camp" }));
  return parts;
}

function pieces(x, y, sp, me) {
  const parts = [];
  const seats = sp.explorers.length;
  sp.explorers.forEach((n, seat) => {
    const px = x - 11 * (seats - 1) + 22 * seat;
    if (n) parts.push(s("circle", { cx: px, cy: y + 14, r: 9, fill: SEAT_COLOURS[seat], class: "piece explorer" }),
      s("text", { x: px, y: y + 18.5, class: "count", text: String(n) }));
    if (sp.leaders[seat]) {
      const leader = [s("circle", { cx: px, cy: y + 34, r: 10, fill: SEAT_COLOURS[seat], class: "leader" }),
        s("path", { d: `M${px - 6} ${y + 31} l3 4 l3 -6 l3 6 l3 -4 v6 h-12 z`, class: "crown" })];
      parts.push(seat === me ? s("g", { "data-key": `leader:${sp.q},${sp.r}`, class: "own-leader" },
        s("title", { text: `your leader at (${sp.q}, ${sp.r})` }), ...leader) : s("g", {}, s("title", { text: `leader of seat ${seat}` }), ...leader));
    }
  });
  if (sp.camp !== null) parts.push(s("path", { d: `M${x + 16} ${y + 2} l11 -18 l11 18 z`, fill: SEAT_COLOURS[sp.camp], class: "camp" }));
  return parts;
}

function space(sp, names, me, last) {
  const [x, y] = axial(sp.q, sp.r, SIZE);
  const parts = [...terrain(x, y, sp.tile, sp.kind, sp.stones, sp.value, sp.tokens, sp.guard), ...pieces(x, y, sp, me)];
  if (last) parts.push(s("polygon", { points: hexPoints(x, y, SIZE - 5), class: "last-ring" }));
  const who = sp.explorers.map((n, seat) => (n ? `${names(seat)} ${n}${sp.leaders[seat] ? " + leader" : ""}` : sp.leaders[seat] ? `${names(seat)} leader` : ""))
    .filter(Boolean).join(", ");
  const title = `${sp.tile.id} ${sp.kind.replace("_", " ")} at (${sp.q}, ${sp.r})${sp.kind === "temple" ? ` level ${sp.value}` : ""}` +
    `${sp.kind === "ruins" ? `, ${sp.tokens} treasures` : ""}${sp.camp !== null ? `, camp of ${names(sp.camp)}` : ""}` +
    `${sp.guard !== null ? `, guarded by ${names(sp.guard)}` : ""}${who ? `; ${who}` : ""}${last ? " (last move)" : ""}`;
  return { el: s("g", { "data-key": `${sp.q},${sp.r}`, class: "space" }, s("title", { text: title }), ...parts), title, x, y };
}

/** The tile in hand, turned: {svg, id, label} for the hand panel. */
export function handTile(view) {
  const t = view.hand;
  if (!t) return null;
  return { id: t.id, label: `${t.id}: ${t.kind}${t.kind === "temple" ? ` ${t.value}` : ""}${t.masks ? `, ${t.masks} treasures` : ""}`, tile: t,
    svg: null, draw(rotation) { return handSvg(t, rotation); } };
}

function handSvg(t, rotation) {
  return s("svg", { viewBox: `${-SIZE - 2} ${-SIZE - 2} ${2 * SIZE + 4} ${2 * SIZE + 4}`, width: 2 * SIZE + 4, height: 2 * SIZE + 4, class: "hand-tile", role: "img",
    "aria-label": `tile ${t.id}, turned ${rotation * 60}°` }, ...terrain(0, 0, t, t.kind, turnedStones(t.stones, rotation), t.value, t.masks, null));
}

/** Ghosts of the tile in hand on the spaces it fits at `rotation`; dashed outlines where it fits turned otherwise. */
function ghosts(view, commands, rotation) {
  const place = commands.filter((c) => c.type === "tikal.PlaceTile");
  if (!place.length || !view.hand) return [];
  const t = view.hand, stones = turnedStones(t.stones, rotation);
  const bySpot = new Map();
  for (const c of place) bySpot.set(`${c.q},${c.r}`, [...(bySpot.get(`${c.q},${c.r}`) || []), c.rotation]);
  return [...bySpot].map(([k, rots]) => {
    const [q, r] = k.split(",").map(Number);
    const [x, y] = axial(q, r, SIZE);
    if (rots.includes(rotation)) {
      return { el: s("g", { "data-key": `place:${q},${r},${rotation}`, class: "space ghost-spot" }, s("title", { text: `place ${t.id} at (${q}, ${r}) turned ${rotation * 60}°` }),
        s("g", { class: "ghost" }, ...terrain(x, y, t, t.kind, stones, t.value, t.masks, null))), x, y };
    }
    return { el: s("g", { class: "space", "data-turn-to": String(rots[0]) }, s("title", { text: `(${q}, ${r}): fits turned ${rots.map((n) => `${n * 60}°`).join(", ")}` }),
      s("polygon", { points: hexPoints(x, y, SIZE - 4), class: "other-turn" }), s("text", { x, y: y + 5, class: "hex-label", text: "↻" })), x, y };
  });
}

/** The line over the board: whose turn, action points, the next tile; and the seat's supply to pick from
    (explorers, the leader) before entering a piece: {text, parts: [{key, label, title, seat, piece}]}. */
export function bar(view, ui) {
  const over = ui.status && ui.status !== "active";
  const text = `${over ? "Game over" : `${ui.names(view.current)}: ${view.ap_left} AP left`} · next tile letter ${view.next_letter || "—"} · ${view.tiles_left} tiles left${view.scoring_round ? ` · ${view.scoring_round} scoring` : ""}`;
  const p = ui.seat === null || ui.seat === undefined ? null : view.players[ui.seat];
  const parts = !p ? [] : [{ key: "supply:explorer", label: `×${p.explorers}`, title: `${p.explorers} explorers in your supply`, seat: ui.seat, piece: "explorer" },
    ...(p.leader === "supply" ? [{ key: "supply:leader", label: "leader", title: "your leader in your supply", seat: ui.seat, piece: "leader" }] : [])];
  return { text, caption: p ? "Your supply:" : "", parts };
}

function lastSpot(ev) {
  if (!ev || !ev.data) return null;
  const d = ev.data;
  if (Number.isInteger(d.to_q)) return `${d.to_q},${d.to_r}`;
  if (Number.isInteger(d.q)) return `${d.q},${d.r}`;
  return null;
}

/** Where the last move came from (a piece moved), drawn as a line from there to where it went. */
function lastPath(ev) {
  const d = ev && ev.data;
  if (!d || !Number.isInteger(d.from_q) || !Number.isInteger(d.to_q)) return null;
  const [x1, y1] = axial(d.from_q, d.from_r, SIZE), [x2, y2] = axial(d.to_q, d.to_r, SIZE);
  return s("line", { x1, y1, x2, y2, class: "last-path" });
}

export function draw(view, ui) {
  const names = ui.names;
  const last = lastSpot(ui.last);
  const spaces = view.board.map((sp) => space(sp, names, ui.seat, `${sp.q},${sp.r}` === last));
  const taken = new Set(view.board.map((sp) => `${sp.q},${sp.r}`));
  const ghostly = ghosts(view, ui.commands || [], ui.rotation || 0).filter((g) => g);
  const offered = new Set((ui.commands || []).filter((c) => c.type === "tikal.PlaceTile").map((c) => `${c.q},${c.r}`));
  const outline = ((catalogue && catalogue.board_spaces) || []).filter(([q, r]) => !taken.has(`${q},${r}`) && !offered.has(`${q},${r}`)).map(([q, r]) => {
    const [x, y] = axial(q, r, SIZE);
    return { el: s("polygon", { points: hexPoints(x, y, SIZE - 2), class: "hex-empty" }), x, y };
  });
  const all = [...outline, ...spaces, ...ghostly];
  const xs = all.map((p) => p.x), ys = all.map((p) => p.y);
  const minX = Math.min(...xs) - SIZE - 4, minY = Math.min(...ys) - SIZE - 4;
  const w = Math.max(Math.max(...xs) - minX + SIZE + 4, 420), hgt = Math.max(...ys) - minY + SIZE + 4;
  const over = ui.status && ui.status !== "active";
  const label = `Tikal board, ${view.board.length} tiles; ${over ? "game over" : `${names(view.current)} to act with ${view.ap_left} action points`}`;
  const svg = drawing(label, `${minX} ${minY} ${w} ${hgt}`, s("rect", { x: minX, y: minY, width: w, height: hgt, class: "jungle-bg" }),
    ...all.map((p) => p.el), lastPath(ui.last));
  svg.classList.add("tikal");
  const summary = [
    `Phase ${view.phase}; ${over ? "the game is over" : `${names(view.current)} to act, ${view.ap_left} action points left`}.`,
    `Tile in hand: ${view.hand ? `${view.hand.id} (${view.hand.kind}, stones ${view.hand.stones.join("")})` : "none"}; ${view.tiles_left} tiles left.`,
    ...view.players.map((p, i) => `${names(i)}: ${p.score} points, ${p.explorers} explorers in supply, leader ${p.leader}, ${view.treasure_counts[i]} treasures, ${p.camps} camps, ${p.guards} guards.`),
    ...spaces.map((p) => p.title)];
  return { svg, summary };
}

/** A seat's pieces and treasures in a few words, for the players panel. */
export function playerLine(view, seat) {
  const p = view.players[seat];
  if (!p) return "";
  return `${p.explorers} explorers · leader ${p.leader} · ${view.treasure_counts[seat]} treasures · ${p.camps} camps · ${p.guards} guards`;
}
