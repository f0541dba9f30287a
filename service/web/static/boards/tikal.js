/* Tikal: the hex map (tiles with stones, values, tokens), explorers, leaders, camps, guards. */

import { s, h, drawing, hexPoints, axial, SEAT_COLOURS } from "../dom.js";

const SIZE = 40;
const FILL = { jungle: "#7dba6a", temple: "#b8b2a3", ruins: "#c9a36b", clearing: "#a9cf8f", volcano: "#c8553d",
  camp: "#e8dcc0", base: "#e8dcc0" };

/** The click path of a command: a piece from the supply then a camp, a piece (the leader apart) then its
    destination, or the hex an action happens on. */
export function keys(c) {
  const t = c.type.split(".")[1];
  if (t === "EnterPiece") return [`supply:${c.leader ? "leader" : "explorer"}`, `${c.q},${c.r}`];
  if (t === "MovePiece" || t === "CampMove") return [`${c.leader ? "leader:" : ""}${c.from_q},${c.from_r}`, `${c.to_q},${c.to_r}`];
  if ("q" in c && "r" in c) return [`${c.q},${c.r}`];
  return null;
}

function stones(x, y, counts) {
  const out = [];
  counts.forEach((n, e) => {
    const a = (-90 + 60 * e) * Math.PI / 180;
    for (let i = 0; i < n; i++) {
      const off = (i - (n - 1) / 2) * 7;
      const d = SIZE * 0.72;
      out.push(s("rect", { x: x + d * Math.cos(a) - off * Math.sin(a) - 3, y: y + d * Math.sin(a) + off * Math.cos(a) - 3,
        width: 6, height: 6, class: "stone" }));
    }
  });
  return out;
}

function space(sp, names, me) {
  const [x, y] = axial(sp.q, sp.r, SIZE);
  const parts = [s("polygon", { points: hexPoints(x, y, SIZE - 1), fill: FILL[sp.kind] || "#ddd", class: "hex" }),
    ...stones(x, y, sp.stones)];
  const label = sp.kind === "temple" ? String(sp.value) : sp.kind === "ruins" ? `${sp.tokens}◆` : sp.kind === "volcano" ? "▲" : "";
  if (label) parts.push(s("text", { x, y: y - 14, class: "hex-label", text: label }));
  sp.explorers.forEach((n, seat) => {
    const px = x - 16 + 11 * seat;
    if (n) parts.push(s("circle", { cx: px, cy: y + 4, r: 6, fill: SEAT_COLOURS[seat], class: "piece" }),
      s("text", { x: px, y: y + 7.5, class: "count", text: String(n) }));
    if (sp.leaders[seat]) {
      const leader = [s("circle", { cx: px, cy: y + 19, r: 6, fill: SEAT_COLOURS[seat], class: "leader" }),
        s("text", { x: px, y: y + 22, class: "count", text: "L" })];
      parts.push(seat === me ? s("g", { "data-key": `leader:${sp.q},${sp.r}`, class: "own-leader" },
        s("title", { text: `your leader at (${sp.q}, ${sp.r})` }), ...leader) : s("g", {}, ...leader));
    }
  });
  if (sp.camp !== null) parts.push(s("path", { d: `M${x + 14} ${y - 4} l8 -12 l8 12 z`, fill: SEAT_COLOURS[sp.camp], class: "camp" }));
  if (sp.guard !== null) parts.push(s("rect", { x: x - 6, y: y - 34, width: 12, height: 10, fill: SEAT_COLOURS[sp.guard], class: "guard" }));
  const who = sp.explorers.map((n, seat) => (n ? `${names(seat)} ${n}${sp.leaders[seat] ? " + leader" : ""}` : sp.leaders[seat] ? `${names(seat)} leader` : ""))
    .filter(Boolean).join(", ");
  const title = `${sp.tile.id} ${sp.kind} at (${sp.q}, ${sp.r})${sp.kind === "temple" ? ` value ${sp.value}` : ""}` +
    `${sp.kind === "ruins" ? `, ${sp.tokens} treasures` : ""}${sp.camp !== null ? `, camp of ${names(sp.camp)}` : ""}` +
    `${sp.guard !== null ? `, guarded by ${names(sp.guard)}` : ""}${who ? `; ${who}` : ""}`;
  return { el: s("g", { "data-key": `${sp.q},${sp.r}`, class: "space" }, s("title", { text: title }), ...parts), title, x, y };
}

/** The seat's pieces not yet on the board: explorers (a count) and the leader, to pick before entering one. */
function supply(view, seat, x, y) {
  const p = seat === null || seat === undefined ? null : view.players[seat];
  if (!p) return [];
  const parts = [s("text", { x, y: y + 20, class: "caption", text: "Your supply:" })];
  parts.push(s("g", { "data-key": "supply:explorer", class: "supply" }, s("title", { text: `${p.explorers} explorers in your supply` }),
    s("rect", { x: x + 84, y, width: 44, height: 30, rx: 6, class: "disc-slot" }),
    s("circle", { cx: x + 98, cy: y + 15, r: 8, fill: SEAT_COLOURS[seat], class: "piece" }),
    s("text", { x: x + 116, y: y + 20, class: "hex-label", text: String(p.explorers) })));
  if (p.leader === "supply") parts.push(s("g", { "data-key": "supply:leader", class: "supply" }, s("title", { text: "your leader in your supply" }),
    s("rect", { x: x + 134, y, width: 30, height: 30, rx: 6, class: "disc-slot" }),
    s("circle", { cx: x + 149, cy: y + 15, r: 8, fill: SEAT_COLOURS[seat], class: "leader" }),
    s("text", { x: x + 149, y: y + 18.5, class: "count", text: "L" })));
  return parts;
}

export function draw(view, ui) {
  const names = ui.names;
  const spaces = view.board.map((sp) => space(sp, names, ui.seat));
  const taken = new Set(view.board.map((sp) => `${sp.q},${sp.r}`));
  const empty = [...new Set((ui.commands || []).filter((c) => c.type === "tikal.PlaceTile").map((c) => `${c.q},${c.r}`))]
    .filter((k) => !taken.has(k)).map((k) => {
      const [q, r] = k.split(",").map(Number);
      const [x, y] = axial(q, r, SIZE);
      return { el: s("g", { "data-key": k, class: "space empty" }, s("title", { text: `empty space (${q}, ${r})` }),
        s("polygon", { points: hexPoints(x, y, SIZE - 3), class: "hex-empty" })), x, y };
    });
  const all = [...spaces, ...empty];
  const xs = all.map((p) => p.x), ys = all.map((p) => p.y);
  const minX = Math.min(...xs) - SIZE, minY = Math.min(...ys) - SIZE, w = Math.max(...xs) - minX + SIZE, hgt = Math.max(...ys) - minY + SIZE;
  const label = `Tikal board, ${view.board.length} tiles; ${names(view.current)} to play with ${view.ap_left} action points`;
  const svg = drawing(label, `${minX} ${minY} ${w} ${hgt + 80}`, ...all.map((p) => p.el),
    s("text", { x: minX + 6, y: minY + hgt + 24, class: "caption",
      text: `Hand: ${view.hand ? `${view.hand.id} ${view.hand.kind}` : "—"} · next ${view.next_letter || "—"} · ${view.tiles_left} tiles left · scores ${view.scores.join(" / ")}` }),
    ...supply(view, ui.seat, minX + 6, minY + hgt + 40));
  const summary = [
    `Phase ${view.phase}; ${names(view.current)} to play, ${view.ap_left} action points left.`,
    `Tile in hand: ${view.hand ? `${view.hand.id} (${view.hand.kind}, stones ${view.hand.stones.join("")})` : "none"}; ${view.tiles_left} tiles left.`,
    ...view.players.map((p, i) => `${names(i)}: ${p.score} points, ${p.explorers} explorers in supply, leader ${p.leader}, ${view.treasure_counts[i]} treasures, ${p.camps} camps, ${p.guards} guards.`),
    ...spaces.map((p) => p.title)];
  return { svg, summary };
}
