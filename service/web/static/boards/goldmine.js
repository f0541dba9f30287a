/* Gold Mine: the cave of square tiles with their paths, chambers and coins, and the pirates. */

import { s, drawing, SEAT_COLOURS } from "../dom.js";

const CELL = 60;
const SIDES = ["N", "E", "S", "W"];
const END = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };

/** The click path of a command: the cell it names, a token then the pirate challenged, the coin taken,
    the stack explored or the die rolled. */
export function keys(c, ctx) {
  const t = c.type.split(".")[1];
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

function tile(t, names) {
  const x = t.x * CELL, y = t.y * CELL, cx = x + CELL / 2, cy = y + CELL / 2;
  const face = typeof t.tile === "string" ? null : t.tile;
  const id = face ? face.id : t.tile;
  const kind = face ? face.kind : "tile";
  const parts = [s("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, class: `cave ${kind}` })];
  for (const path of face ? face.paths : []) {
    const ends = path.sides.map((side) => END[turned(side, t.rotation)]);
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
    if (path.chamber) parts.push(s("circle", { cx, cy, r: 9, class: "chamber" }));
  }
  if (kind === "entrance") parts.push(s("text", { x: cx, y: y + 12, class: "hex-label light", text: "entrance" }));
  if (t.coin) parts.push(s("g", { "data-key": `coin:${t.x},${t.y}`, class: "coin-slot" }, s("title", { text: `the coin at (${t.x}, ${t.y})` }),
    s("circle", { cx, cy, r: 6, class: "coin" })));
  const title = `${kind} ${id} at (${t.x}, ${t.y}), turned ${t.rotation * 90}°${t.coin ? ", a coin in its chamber" : ""}`;
  return { el: s("g", { "data-key": `${t.x},${t.y}`, class: "cell" }, s("title", { text: title }), ...parts), title, x: t.x, y: t.y };
}

/** A row of things to pick: the stack to explore, the die to roll and the seat's own bet and bats tokens. */
function controls(view, seat, x, y) {
  const button = (key, title, text, dx, width) => s("g", { "data-key": key, class: "slot" }, s("title", { text: title }),
    s("rect", { x: x + dx, y, width, height: 30, rx: 6, class: "disc-slot" }),
    s("text", { x: x + dx + width / 2, y: y + 19, class: "hex-label", text }));
  const parts = [button("stack", `the stack: ${view.stack_size} tiles`, `stack ${view.stack_size}`, 0, 70),
    button("die", `the die: ${view.die || "not rolled"}`, `die ${view.die || "—"}`, 76, 60)];
  const me = seat === null || seat === undefined ? null : view.pirates[seat];
  if (me) parts.push(button("token:bet", `your bet tokens: ${me.bets}`, `bet ×${me.bets}`, 150, 70),
    button("token:bats", `your bats tokens: ${me.bats}`, `bats ×${me.bats}`, 226, 76));
  return parts;
}

export function draw(view, ui) {
  const names = ui.names;
  const cells = view.board.map((t) => tile(t, names));
  const taken = new Set(view.board.map((t) => `${t.x},${t.y}`));
  const free = [...new Set((ui.commands || []).filter((c) => "x" in c).map((c) => `${c.x},${c.y}`))].filter((k) => !taken.has(k))
    .map((k) => {
      const [x, y] = k.split(",").map(Number);
      return { el: s("g", { "data-key": k, class: "cell empty" }, s("title", { text: `empty cell (${x}, ${y})` }),
        s("rect", { x: x * CELL + 3, y: y * CELL + 3, width: CELL - 6, height: CELL - 6, class: "cave-empty" })), x, y };
    });
  const pirates = view.pirates.map((p, seat) => {
    const cx = p.x * CELL + CELL / 2 + (seat - (view.pirates.length - 1) / 2) * 12, cy = p.y * CELL + CELL / 2 + 14;
    return s("g", { class: "pirate", "data-key": `pirate:${seat}` }, s("title", { text: `${names(seat)}'s pirate at (${p.x}, ${p.y}), ${p.coins} coins` }),
      s("circle", { cx, cy, r: 8, fill: SEAT_COLOURS[seat] }), s("text", { x: cx, y: cy + 3.5, class: "count", text: String(p.coins) }));
  });
  const all = [...cells, ...free];
  const xs = all.map((c) => c.x), ys = all.map((c) => c.y);
  const minX = Math.min(...xs, 0) * CELL - 10, minY = Math.min(...ys, 0) * CELL - 10;
  const w = Math.max((Math.max(...xs, 0) + 1) * CELL - minX + 10, 330), hgt = (Math.max(...ys, 0) + 1) * CELL - minY + 10;
  const drawnTile = view.drawn ? (typeof view.drawn === "string" ? view.drawn : view.drawn.id) : null;
  const label = `Gold Mine cave, ${view.board.length} tiles; coins ${view.pirates.map((p, i) => `${names(i)} ${p.coins}`).join(", ")}`;
  const svg = drawing(label, `${minX} ${minY} ${w} ${hgt + 70}`, ...all.map((c) => c.el), ...pirates,
    s("text", { x: minX + 6, y: minY + hgt + 20, class: "caption",
      text: `Target ${view.target} coins · stack ${view.stack_size} · die ${view.die || "—"} · drawn ${drawnTile || "—"}` }),
    ...controls(view, ui.seat, minX + 6, minY + hgt + 32));
  const summary = [
    `Phase ${view.phase}; ${names(view.current)}'s turn ${view.turns}; die ${view.die || "not rolled"}; drawn tile ${drawnTile || "none"}.`,
    `First to ${view.target} coins wins; ${view.stack_size} tiles in the stack.`,
    ...(view.hands || []).map((hand, i) => (hand.length ? `${names(i)}'s face-up tiles: ${hand.map((x) => (typeof x === "string" ? x : `${x.id} ${x.kind}`)).join(", ")}.` : "")).filter(Boolean),
    ...view.pirates.map((p, i) => `${names(i)}: pirate at (${p.x}, ${p.y}) path ${p.path}, ${p.coins} coins, ${p.bets} bets, ${p.bats} bats.`),
    ...cells.map((c) => c.title)];
  return { svg, summary };
}
