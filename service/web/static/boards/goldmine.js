/* Gold Mine: the cave of square tiles with their tunnels, chambers and gold, and the pirates. The drawn tile is
shown turned, with a ghost on every cell it may go; the last move is ringed. The cave grows without bound: the
page's pan-and-zoom window keeps it at a readable size (a cell is 72 units, a pawn 22, a coin 18). */

import { s, drawing, SEAT_COLOURS } from "../dom.js";

const CELL = 72;
export const ROTATIONS = 4;
const SIDES = ["N", "E", "S", "W"];
const END = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };

/** The click path of a command: the cell it names, a token then the pirate challenged, the coin taken,
    the stack explored or the die rolled. */
export function keys(c, ctx) {
  const t = c.type.split(".")[1];
  if (t === "PlaceTile") return [`place:${c.x},${c.y},${c.rotation}`];
  if ("x" in c && "y" in c) return [`${c.x},${c.y}`];
  if (t === "Challenge") return [`token:${c.kind}`, `pirate:${c.target}`];
  if (t === "Explore" && c.tile === null) return ["stack"];
  if (t === "Roll") return ["die"];
  const me = ctx && ctx.view && ctx.view.pirates[ctx.view.current];
  if (t === "TakeCoin" && me) return [`coin:${me.x},${me.y}`];
  return null;
}

function turned(side, rotation) {
  return SIDES[(SIDES.indexOf(side) + rotation) % 4];
}

/** A tile's face at cell (x, y) of the drawing, turned `rotation` quarter turns. */
function face(x, y, face, rotation) {
  const cx = x + CELL / 2, cy = y + CELL / 2;
  const kind = face ? face.kind : "tile";
  const parts = [s("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: `cave ${kind}` })];
  for (const path of face ? face.paths : []) {
    const ends = path.sides.map((side) => END[turned(side, rotation)]);
    const cls = `path${path.secret ? " secret" : ""}${path.mud ? " mud" : ""}`;
    const whole = kind === "entrance" || kind === "cavern" || path.chamber;
    if (ends.length === 1 && !whole) {  // a dead end: a stub from its side
      const [dx, dy] = ends[0];
      parts.push(s("line", { x1: cx + dx * CELL / 2, y1: cy + dy * CELL / 2, x2: cx + dx * CELL / 6, y2: cy + dy * CELL / 6, class: cls }));
    } else if (ends.length === 2 && !whole) {  // a bend or a straight: one curve through the middle
      const [[ax, ay], [bx, by]] = ends;
      parts.push(s("path", { d: `M${cx + ax * CELL / 2} ${cy + ay * CELL / 2} Q${cx} ${cy} ${cx + bx * CELL / 2} ${cy + by * CELL / 2}`, class: cls }));
    } else {
      for (const [dx, dy] of ends) parts.push(s("line", { x1: cx, y1: cy, x2: cx + dx * CELL / 2, y2: cy + dy * CELL / 2, class: cls }));
    }
    if (path.chamber) parts.push(s("circle", { cx, cy, r: 14, class: "chamber" }));
  }
  if (kind === "entrance") parts.push(s("text", { x: cx, y: y + 15, class: "hex-label light", text: "entrance" }));
  return parts;
}

function tile(t, names, last) {
  const x = t.x * CELL, y = t.y * CELL, cx = x + CELL / 2, cy = y + CELL / 2;
  const f = typeof t.tile === "string" ? null : t.tile;
  const id = f ? f.id : t.tile;
  const kind = f ? f.kind : "tile";
  const parts = face(x, y, f, t.rotation);
  if (last) parts.push(s("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, rx: 6, class: "last-ring" }));
  if (t.coin) parts.push(s("g", { "data-key": `coin:${t.x},${t.y}`, class: "coin-slot" }, s("title", { text: `the coin at (${t.x}, ${t.y})` }),
    s("circle", { cx, cy, r: 9, class: "coin" })));
  const title = `${kind} ${id} at (${t.x}, ${t.y}), turned ${t.rotation * 90}°${t.coin ? ", a coin in its chamber" : ""}${last ? " (last move)" : ""}`;
  return { el: s("g", { "data-key": `${t.x},${t.y}`, class: "cell" }, s("title", { text: title }), ...parts), title, x: t.x, y: t.y };
}

/** The line over the board and the things to pick: the stack to explore, the die to roll and the seat's own
    bet and bats tokens: {text, parts: [{key, label, title}]}. */
export function bar(view, ui) {
  const drawnTile = view.drawn ? (typeof view.drawn === "string" ? view.drawn : view.drawn.id) : null;
  const text = `First to ${view.target} coins · die ${view.die || "—"} · drawn ${drawnTile || "—"}`;
  const me = ui.seat === null || ui.seat === undefined ? null : view.pirates[ui.seat];
  const parts = [{ key: "stack", label: `stack ${view.stack_size}`, title: `explore: draw from the stack of ${view.stack_size} tiles` },
    { key: "die", label: `die ${view.die || "—"}`, title: `the die: ${view.die || "not rolled"}` },
    ...(me ? [{ key: "token:bet", label: `bet ×${me.bets}`, title: `your bet tokens: ${me.bets}` },
      { key: "token:bats", label: `bats ×${me.bats}`, title: `your bats tokens: ${me.bats}` }] : [])];
  return { text, caption: "", parts };
}

/** The drawn tile, turned: {id, label, draw(rotation)} for the hand panel. */
export function handTile(view) {
  const f = view.drawn && typeof view.drawn === "object" ? view.drawn : null;
  if (!f) return null;
  return { id: f.id, label: `${f.id}: ${f.kind}${f.paths.some((p) => p.chamber) ? ", a gold chamber" : ""}`,
    draw: (rotation) => s("svg", { viewBox: `-2 -2 ${CELL + 4} ${CELL + 4}`, width: CELL + 4, height: CELL + 4, class: "hand-tile", role: "img",
      "aria-label": `tile ${f.id}, turned ${rotation * 90}°` }, ...face(0, 0, f, rotation)) };
}

/** Ghosts of the drawn tile on the cells it fits at `rotation`; dashed cells where it fits turned otherwise. */
function ghosts(view, commands, rotation) {
  const place = commands.filter((c) => c.type === "goldmine.PlaceTile");
  const f = view.drawn && typeof view.drawn === "object" ? view.drawn : null;
  const bySpot = new Map();
  for (const c of place) bySpot.set(`${c.x},${c.y}`, [...(bySpot.get(`${c.x},${c.y}`) || []), c.rotation]);
  return [...bySpot].map(([k, rots]) => {
    const [x, y] = k.split(",").map(Number);
    if (rots.includes(rotation)) {
      return { el: s("g", { "data-key": `place:${x},${y},${rotation}`, class: "cell ghost-spot" }, s("title", { text: `place the tile at (${x}, ${y}) turned ${rotation * 90}°` }),
        s("g", { class: "ghost" }, ...face(x * CELL, y * CELL, f, rotation))), x, y };
    }
    return { el: s("g", { class: "cell", "data-turn-to": String(rots[0]) }, s("title", { text: `(${x}, ${y}): fits turned ${rots.map((n) => `${n * 90}°`).join(", ")}` }),
      s("rect", { x: x * CELL + 4, y: y * CELL + 4, width: CELL - 8, height: CELL - 8, class: "other-turn" }),
      s("text", { x: x * CELL + CELL / 2, y: y * CELL + CELL / 2 + 5, class: "hex-label light", text: "↻" })), x, y };
  });
}

function lastCell(ev) {
  const d = ev && ev.data;
  return d && Number.isInteger(d.x) && Number.isInteger(d.y) ? `${d.x},${d.y}` : null;
}

export function draw(view, ui) {
  const names = ui.names;
  const last = lastCell(ui.last);
  const cells = view.board.map((t) => tile(t, names, `${t.x},${t.y}` === last));
  const taken = new Set(view.board.map((t) => `${t.x},${t.y}`));
  const commands = ui.commands || [];
  const free = [...new Set(commands.filter((c) => "x" in c && c.type !== "goldmine.PlaceTile").map((c) => `${c.x},${c.y}`))].filter((k) => !taken.has(k))
    .map((k) => {
      const [x, y] = k.split(",").map(Number);
      return { el: s("g", { "data-key": k, class: "cell empty" }, s("title", { text: `empty cell (${x}, ${y})` }),
        s("rect", { x: x * CELL + 3, y: y * CELL + 3, width: CELL - 6, height: CELL - 6, class: "cave-empty" })), x, y };
    });
  const placed = ghosts(view, commands, ui.rotation || 0);
  const here = new Map();
  const pirates = view.pirates.map((p, seat) => {
    const k = `${p.x},${p.y}`, n = here.get(k) || 0;
    here.set(k, n + 1);
    const cx = p.x * CELL + 14 + (n % 3) * 22, cy = p.y * CELL + CELL - 14 - Math.floor(n / 3) * 22;
    return s("g", { class: "pirate", "data-key": `pirate:${seat}` }, s("title", { text: `${names(seat)}'s pirate at (${p.x}, ${p.y}), ${p.coins} coins` }),
      s("circle", { cx, cy, r: 11, fill: SEAT_COLOURS[seat], class: "pawn" }), s("text", { x: cx, y: cy + 4.5, class: "count", text: String(p.coins) }));
  });
  const all = [...cells, ...free, ...placed];
  const xs = all.map((c) => c.x), ys = all.map((c) => c.y);
  const minX = Math.min(...xs, 0) * CELL - 12, minY = Math.min(...ys, 0) * CELL - 12;
  const w = Math.max((Math.max(...xs, 0) + 1) * CELL - minX + 12, 360), hgt = (Math.max(...ys, 0) + 1) * CELL - minY + 12;
  const drawnTile = view.drawn ? (typeof view.drawn === "string" ? view.drawn : view.drawn.id) : null;
  const label = `Gold Mine cave, ${view.board.length} tiles; coins ${view.pirates.map((p, i) => `${names(i)} ${p.coins}`).join(", ")}`;
  const svg = drawing(label, `${minX} ${minY} ${w} ${hgt}`, s("rect", { x: minX, y: minY, width: w, height: hgt, class: "rock" }),
    ...all.map((c) => c.el), ...pirates);
  svg.classList.add("goldmine");
  const summary = [
    `Phase ${view.phase}; ${ui.status && ui.status !== "active" ? "the game is over" : `${names(view.current)}'s turn ${view.turns}`}; die ${view.die || "not rolled"}; drawn tile ${drawnTile || "none"}.`,
    `First to ${view.target} coins wins; ${view.stack_size} tiles in the stack.`,
    ...(view.hands || []).map((hand, i) => (hand.length ? `${names(i)}'s face-up tiles: ${hand.map((x) => (typeof x === "string" ? x : `${x.id} ${x.kind}`)).join(", ")}.` : "")).filter(Boolean),
    ...view.pirates.map((p, i) => `${names(i)}: pirate at (${p.x}, ${p.y}) path ${p.path}, ${p.coins} coins, ${p.bets} bets, ${p.bats} bats.`),
    ...cells.map((c) => c.title)];
  return { svg, summary };
}

/** A seat's pirate in a few words, for the players panel. */
export function playerLine(view, seat) {
  const p = view.pirates[seat];
  return p ? `${p.coins} of ${view.target} coins · ${p.bets} bets · ${p.bats} bats` : "";
}
