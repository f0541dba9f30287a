/* Board drawers by kind: draw(view, ui) -> {svg, summary: [lines]}; keys(command, ctx) -> click path or null.

A command's click path is the list of board parts (data-key) to click in turn: a piece, then its target.
Commands a board does not place (End turn, Roll, Foretell…: nothing but flags) become buttons of the
action bar beside the board (table.js); the rest stay in the legal list.
A kind without a drawer of its own gets the generic board (generic.js), drawn from its view and catalogue. */

import * as tikal from "./tikal.js";
import * as coatl from "./coatl.js";
import * as tobago from "./tobago.js";
import * as goldmine from "./goldmine.js";
import * as generic from "./generic.js";
import { commandWords } from "../words.js";

const BOARDS = { tikal, coatl, tobago, goldmine };

/** The drawer of `kind`: its own, or the generic board. */
export function boardFor(kind) {
  return Object.hasOwn(BOARDS, kind) ? BOARDS[kind] : generic;
}

/** Ready `kind`'s drawer before the first draw (the generic board fetches the kind's catalogue once). */
export async function loadBoard(kind) {
  const board = boardFor(kind);
  await (board === generic ? generic.load(kind) : board.load ? board.load() : null);
  return board;
}

/**
 * The click path of `command` on `kind`'s board, given ctx {view, seat}: its parts on the board, else one
 * button of the action bar (a plain action, or one the board has no place for: a bid, a trade).
 */
export function clickPath(kind, command, ctx) {
  const path = boardFor(kind).keys(command, ctx);
  return path || [`do:${commandWords(command)}`];
}
