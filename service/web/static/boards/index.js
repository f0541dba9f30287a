/* Board drawers by kind: draw(view, ui) -> {svg, summary: [lines]}; keys(command) -> click path or null. */

import * as tikal from "./tikal.js";
import * as coatl from "./coatl.js";
import * as tobago from "./tobago.js";
import * as goldmine from "./goldmine.js";

const BOARDS = { tikal, coatl, tobago, goldmine };

export function boardFor(kind) {
  return BOARDS[kind];
}
