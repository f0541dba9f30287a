/* Board drawers by kind: draw(view, ui) -> {svg, summary: [lines]}; keys(command, ctx) -> click path or null.

A command's click path is the list of board parts (data-key) to click in turn: a piece, then its target.
Commands a board does not place (End turn, Roll, Foretell…: nothing but flags) become buttons of an
action bar drawn under the board, so they too are clicks on the board; the rest stay in the legal list.
A kind without a drawer of its own gets the generic board (generic.js), drawn from its view and catalogue. */

import * as tikal from "./tikal.js";
import * as coatl from "./coatl.js";
import * as tobago from "./tobago.js";
import * as goldmine from "./goldmine.js";
import * as generic from "./generic.js";
import { s } from "../dom.js";
import { commandWords, plainCommand } from "../words.js";

const BOARDS = { tikal, coatl, tobago, goldmine };

/** The drawer of `kind`: its own, or the generic board. */
export function boardFor(kind) {
  return Object.hasOwn(BOARDS, kind) ? BOARDS[kind] : generic;
}

/** Ready `kind`'s drawer before the first draw (the generic board fetches the kind's catalogue once). */
export async function loadBoard(kind) {
  if (!Object.hasOwn(BOARDS, kind)) await generic.load(kind);
  return boardFor(kind);
}

/**
 * The click path of `command` on `kind`'s board, given ctx {view, seat}; null when it has none
 * (then the legal list is the way to send it).
 */
export function clickPath(kind, command, ctx) {
  const path = boardFor(kind).keys(command, ctx);
  if (path) return path;
  return plainCommand(command) ? [`do:${commandWords(command)}`] : null;
}

/**
 * Append the action bar for `commands` (their paths already known) under the board `svg`, growing its
 * viewBox: one labelled button per distinct action key.
 */
export function addActionBar(svg, paths) {
  const actions = [...new Set(paths.filter((p) => p.keys.length === 1 && p.keys[0].startsWith("do:")).map((p) => p.keys[0]))];
  if (!actions.length) return;
  const [minX, minY, w, hgt] = svg.getAttribute("viewBox").split(/\s+/).map(Number);
  const scale = Math.max(1, w / 640);  // readable on wide boards too
  const rowH = 30 * scale, pad = 6 * scale;
  let x = minX + pad, y = minY + hgt + pad;
  const bar = s("g", { class: "action-bar" });
  for (const key of actions) {
    const label = key.slice(3);
    const bw = (label.length * 7.2 + 20) * scale;
    if (x + bw > minX + w && x > minX + pad) { x = minX + pad; y += rowH + pad; }
    bar.append(s("g", { "data-key": key, class: "action" }, s("title", { text: label }),
      s("rect", { x, y, width: bw, height: rowH, rx: 6 * scale, class: "action-button" }),
      s("text", { x: x + bw / 2, y: y + rowH * 0.66, class: "action-text", "font-size": 13 * scale, text: label })));
    x += bw + pad;
  }
  svg.append(bar);
  svg.setAttribute("viewBox", `${minX} ${minY} ${w} ${y + rowH + pad - minY}`);
}
