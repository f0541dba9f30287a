/* Cóatl: the supply disc with its ten slots, the prophecy row and the deck, the two temple piles, and each
player's board of pieces, coatls (pieces head to tail on a strip, the cards played beside them), hand and
temple cards. Cards are drawn as cards: a coloured band, the pattern as pieces, the points by level; a temple
card lists its requirements in words and its points by requirements met. Nothing is smaller than 12 units.
On a phone (`ui.narrow`) the table is one narrow column, the player's own area first, so it never pans sideways. */

import { s, drawing, SEAT_COLOURS } from "../dom.js";

const PIECE = { red: "#c0392b", yellow: "#f1c40f", blue: "#2e86c1", green: "#27ae60", black: "#222", white: "#eee" };
const W = 860, NARROW = 340, CW = 136, CH = 112, GAP = 8;

/** The click path of a command: a disc slot, a row card, a piece then a coatl end, a hand card then a coatl
    (or the discard), a temple card or a temple pile; the dealt cards to keep, in any order, then "keep". */
export function keys(c) {
  const t = c.type.split(".")[1];
  if (t === "TakePieces") return [`disc:${c.slot}:${c.index}`];
  if (t === "TakeProphecy") return [c.card === null ? "deck" : `row:${c.card}`];
  if (t === "StartCoatl") return [`piece:${c.piece.kind}:${c.piece.color}`, "new-coatl"];
  if (t === "AddPiece") return [`piece:${c.piece.kind}:${c.piece.color}`, `coatl:${c.coatl}:${c.end}`];
  if (t === "PlayProphecy") return [`hand:${c.card}`, `coatl:${c.coatl}`];
  if (t === "PlayTemple") return [`temple:${c.temple}`];
  if (t === "PriestsDuty") return [`pile:${c.pile}`];
  if (t === "DiscardProphecy") return [`hand:${c.card}`, "discard"];
  if (t === "KeepProphecies") return Object.assign([...c.cards.map((id) => `hand:${id}`), "keep"], { unordered: true });
  return null;
}

/** A piece: a head is a triangle, a tail a small disc, a body a disc; 16 units at the least. */
function piece(p, x, y, key) {
  const shape = p.kind === "head" ? s("path", { d: `M${x - 10} ${y + 9} L${x} ${y - 11} L${x + 10} ${y + 9} z`, fill: PIECE[p.color], class: "piece" })
    : p.kind === "tail" ? s("path", { d: `M${x - 9} ${y - 8} L${x + 9} ${y - 8} L${x} ${y + 10} z`, fill: PIECE[p.color], class: "piece" })
      : s("circle", { cx: x, cy: y, r: 9, fill: PIECE[p.color], class: "piece" });
  return s("g", key ? { "data-key": key, class: "coatl-piece" } : { class: "coatl-piece" }, s("title", { text: `${p.color} ${p.kind}` }), shape);
}

/** One token of a pattern ("red", "red+", "NOT red", "ANY+") at (x, y); its width. */
function patternToken(token, x, y) {
  if (token === "ANY+") return [[s("rect", { x: x - 2, y: y - 9, width: 34, height: 18, rx: 9, class: "any" }), s("text", { x: x + 15, y: y + 4.5, class: "card-text mid", text: "any+" })], 36];
  const not = token.startsWith("NOT ");
  const colour = token.replace(/^NOT /, "").replace(/\+$/, "");
  const out = [s("circle", { cx: x + 8, cy: y, r: 8, fill: PIECE[colour] || "#999", class: `piece${not ? " not" : ""}` })];
  if (not) out.push(s("path", { d: `M${x + 1} ${y - 7} l14 14 M${x + 15} ${y - 7} l-14 14`, class: "cross" }));
  if (token.endsWith("+")) { out.push(s("text", { x: x + 20, y: y + 5, class: "card-text", text: "+" })); return [out, 28]; }
  return [out, 19];
}

const KIND_WORDS = { color_count: "count", isolated_pair: "isolated pairs", run: "runs of 3", sequence_repeatable: "sequence ×n",
  sequence_once: "sequence once", mirror_gap_once: "mirror", bracket_infinity: "bracket" };

function prophecy(card, x, y, key, faceDown = false) {
  const points = Object.entries(card.points || {}).map(([k, v]) => `${k}×→${v}`).join("  ");
  const parts = [s("title", { text: `prophecy ${card.id}: ${card.kind.replace(/_/g, " ")} ${(card.pattern || []).join(" ")}; points ${points}` }),
    s("rect", { x, y, width: CW, height: CH, rx: 7, class: `card${faceDown ? " closed" : ""}` }),
    s("rect", { x, y, width: CW, height: 22, rx: 7, fill: PIECE[card.card_color] || "#bbb", class: "band" }),
    s("text", { x: x + 7, y: y + 16, class: `card-text strong${card.card_color === "black" || card.card_color === "blue" ? " light" : ""}`, text: `#${card.id} ${KIND_WORDS[card.kind] || card.kind.replace(/_/g, " ")}` })];
  let px = x + 7, py = y + 42;
  for (const token of card.pattern || []) {
    const w = patternToken(token, px, py)[1];
    if (px + w > x + CW - 4) { px = x + 7; py += 22; }
    const [again] = patternToken(token, px, py);
    parts.push(...again);
    px += w;
  }
  const levels = Object.entries(card.points || {}).map(([k, v]) => `${k}×→${v}`);
  const lines = levels.length > 2 ? [levels.slice(0, 2), levels.slice(2)] : [levels];
  lines.forEach((line, i) => parts.push(s("text", { x: x + 7, y: y + CH - 10 - (lines.length - 1 - i) * 16, class: "card-text strong", text: `${i ? "  " : "★ "}${line.join("  ")}` })));
  return s("g", key ? { "data-key": key, class: "card-slot" } : { class: "card-slot" }, ...parts);
}

function requirementWords(r) {
  if ("no_piece_of" in r) return `no ${r.no_piece_of} piece`;
  if ("exact_length" in r) return `exactly ${r.exact_length} pieces`;
  if ("equal_count" in r) return `${r.equal_count.join(" = ")} (≥ 1 each)`;
  if ("no_prophecy_card_of_color" in r) return `no ${r.no_prophecy_card_of_color} card`;
  return Object.entries(r).map(([k, v]) => `${k.replace(/_/g, " ")} ${[].concat(v).join(" ")}`).join("");
}

function temple(card, x, y, key) {
  const reqs = card.requirements.map(requirementWords);
  const points = Object.entries(card.points_by_requirements_met || {}).map(([k, v]) => `${k} met→${v}`).join("  ");
  return s("g", key ? { "data-key": key, class: "card-slot" } : { class: "card-slot" },
    s("title", { text: `temple ${card.id}: ${reqs.join("; ")}; points ${points}` }),
    s("rect", { x, y, width: CW + 24, height: CH, rx: 7, class: "card temple" }),
    s("path", { d: `M${x + 10} ${y + 24} h24 v-4 h-4 v-4 h-4 v-4 h-8 v4 h-4 v4 h-4 z`, class: "temple-icon" }),
    s("text", { x: x + 40, y: y + 18, class: "card-text strong", text: `Temple ${card.id}` }),
    ...reqs.map((r, i) => s("text", { x: x + 8, y: y + 44 + i * 18, class: "card-text", text: `• ${r}` })),
    s("text", { x: x + 8, y: y + CH - 10, class: "card-text strong", text: `★ ${points}` }));
}

/** The supply disc: a round board, heads and tails at the top, the six body slots around the bottom. */
function disc(view, cx, cy) {
  const slots = [...view.disc.heads.map((c, i) => ["head", i, c ? [c] : []]), ...view.disc.tails.map((c, i) => ["tail", i, c ? [c] : []]),
    ...view.disc.bodies.map((cs, i) => ["body", i, cs])];
  const parts = [s("circle", { cx, cy, r: 118, class: "disc" }), s("circle", { cx, cy, r: 34, class: "disc-hub" }),
    s("text", { x: cx, y: cy + 5, class: "hex-label", text: `bag ${view.bag_sizes ? view.bag_sizes.body : ""}` })];
  slots.forEach(([kind, i, colours], n) => {
    const a = (-90 + (360 / slots.length) * (n + 0.5)) * Math.PI / 180;
    const x = cx + 78 * Math.cos(a), y = cy + 78 * Math.sin(a);
    parts.push(s("g", { "data-key": `disc:${kind}:${i}`, class: "slot" }, s("title", { text: `${kind} slot ${i}: ${colours.join(", ") || "empty"}` }),
      s("rect", { x: x - 26, y: y - 17, width: 52, height: 34, rx: 10, class: "disc-slot" }),
      ...colours.map((c, k) => piece({ kind, color: c }, x - (colours.length - 1) * 11 + k * 22, y, null))));
  });
  return parts;
}

function playerArea(p, view, names, y0, width) {
  const parts = [], mine = p.seat === view.seat, narrow = width < W;
  let y = y0;
  const who = `${names(p.seat)} — ${p.score} points`;
  const tokens = p.tokens && p.tokens.length ? `tokens: ${p.tokens.join(", ")}` : "";
  const what = `${p.completed} coatls done · ${p.hand_size ?? "?"} cards · ${p.temple_count} temples`;
  parts.push(s("rect", { x: 4, y: y - 4, width: width - 8, height: 8, fill: SEAT_COLOURS[p.seat], class: "player-band" }),
    s("text", { x: 10, y: y + 24, class: "caption strong", text: narrow ? who : [who, what, tokens].filter(Boolean).join(" · ") }));
  if (narrow) parts.push(s("text", { x: 10, y: y + 44, class: "caption", text: what }));
  if (narrow && tokens) parts.push(s("text", { x: 10, y: y + 64, class: "caption", text: tokens }));
  y += narrow ? (tokens ? 78 : 58) : 38;
  parts.push(s("text", { x: 10, y: y + 20, class: "caption", text: "Board:" }));
  for (let i = 0; i < 8; i++) parts.push(s("rect", { x: 64 + i * 30, y: y + 2, width: 26, height: 26, rx: 5, class: "board-slot" }));
  p.board.forEach((pc, i) => parts.push(piece(pc, 77 + i * 30, y + 15, mine ? `piece:${pc.kind}:${pc.color}` : null)));
  if (mine) {
    const button = (key, title, text, x, w = 110) => s("g", { "data-key": key, class: "slot" }, s("title", { text: title }),
      s("rect", { x, y: y + 1, width: w, height: 28, rx: 6, class: "disc-slot" }), s("text", { x: x + w / 2, y: y + 20, class: "hex-label", text }));
    if (narrow) y += 38;  // the buttons on a row of their own
    const x0 = narrow ? 10 : 320;
    parts.push(button("new-coatl", "start a new coatl", "new coatl", x0, 100), button("discard", "discard a prophecy card", "discard", x0 + 106, 100));
    if ((p.dealt || []).length) parts.push(button("keep", "keep the chosen cards, discard the other dealt ones", "keep chosen", x0 + 212, 116));
  }
  y += 40;
  p.coatls.forEach((c, ci) => {
    const len = Math.max(1, c.pieces.length);
    const step = Math.min(24, (width - 86) / len);  // a long coatl packs closer so its tail stays on the board
    parts.push(s("g", { "data-key": `coatl:${ci}:head`, class: "slot" }, s("title", { text: `head end of coatl ${ci}` }),
      s("rect", { x: 8, y, width: 22, height: 30, rx: 4, class: "end" }), s("text", { x: 19, y: y + 20, class: "hex-label", text: "H" })));
    parts.push(s("g", { "data-key": `coatl:${ci}`, class: "slot" },
      s("title", { text: `coatl ${ci} (${c.status}, worth ${c.value}): ${c.pieces.map((q) => `${q.color} ${q.kind}`).join(", ") || "empty"}` }),
      s("rect", { x: 34, y, width: step * len + 10, height: 30, rx: 14, class: `coatl ${c.status}` }),
      ...c.pieces.map((q, k) => piece(q, 46 + k * step, y + 15, null))));
    const tailX = 48 + step * len;
    parts.push(s("g", { "data-key": `coatl:${ci}:tail`, class: "slot" }, s("title", { text: `tail end of coatl ${ci}` }),
      s("rect", { x: tailX, y, width: 22, height: 30, rx: 4, class: "end" }), s("text", { x: tailX + 11, y: y + 20, class: "hex-label", text: "T" })),
    s("text", { x: narrow ? 40 : tailX + 30, y: narrow ? y + 52 : y + 20, class: "caption", text: `${c.status}${c.value ? `, ${c.value} points` : ""}` }));
    y += narrow ? 62 : 38;
    const cards = [...c.cards.map((card) => ({ card, temple: false })), ...(c.temple ? [{ card: c.temple, temple: true }] : [])];
    const across = Math.max(1, Math.floor((width - 40) / (CW + 24 + GAP)));
    cards.forEach((it, k) => {
      const x = 40 + (k % across) * (CW + GAP), at = y + Math.floor(k / across) * (CH + GAP);
      parts.push(it.temple ? temple(it.card, x, at, null) : prophecy(it.card, x, at, null, c.status !== "open"));
    });
    y += Math.ceil(cards.length / across) * (CH + GAP);
  });
  const hand = [...(p.hand || []), ...(p.dealt || [])];  // the opening's dealt cards are picked like the hand
  if (hand.length) parts.push(s("text", { x: 10, y: y + 16, class: "caption", text: mine ? "Your hand:" : "Hand:" }));
  if (hand.length) y += 24;
  const perRow = Math.floor((width - 16) / (CW + GAP));
  hand.forEach((card, i) => parts.push(prophecy(card, 8 + (i % perRow) * (CW + GAP), y + Math.floor(i / perRow) * (CH + GAP), `hand:${card.id}`)));
  y += Math.ceil(hand.length / perRow) * (CH + GAP);
  if ((p.temples || []).length) {
    parts.push(s("text", { x: 10, y: y + 16, class: "caption", text: "Your temple cards:" }));
    y += 24;
    const across = Math.max(1, Math.floor((width - 16) / (CW + 24 + GAP)));
    p.temples.forEach((t, i) => parts.push(temple(t, 8 + (i % across) * (CW + 24 + GAP), y + Math.floor(i / across) * (CH + GAP), `temple:${t.id}`)));
    y += Math.ceil(p.temples.length / across) * (CH + GAP);
  }
  return { parts, y: y + 8 };
}

export function draw(view, ui) {
  const names = ui.names;
  const width = ui.narrow ? NARROW : W;
  const parts = [];
  let top = 0;
  const own = ui.narrow ? view.players.find((p) => p.seat === view.seat) : null;
  if (own) {  // a phone: the player's own area first
    const area = playerArea(own, view, names, 8, width);
    parts.push(...area.parts);
    top = area.y + 4;
  }
  parts.push(s("text", { x: 10, y: top + 22, class: "caption strong", text: "Supply disc" }), ...disc(view, 130, top + 152));
  const rx = ui.narrow ? 8 : 262, ry = ui.narrow ? top + 290 : top;
  parts.push(s("text", { x: rx, y: ry + 22, class: "caption strong", text: `Prophecy row · deck ${view.deck_size}` }));
  const perRow = Math.floor((width - rx - 8) / (CW + GAP));
  view.row.forEach((card, i) => parts.push(prophecy(card, rx + (i % perRow) * (CW + GAP), ry + 32 + Math.floor(i / perRow) * (CH + GAP), `row:${card.id}`)));
  const rows = Math.max(1, Math.ceil((view.row.length + 1) / perRow));
  const n = view.row.length;
  const dx = rx + (n % perRow) * (CW + GAP), dy = ry + 32 + Math.floor(n / perRow) * (CH + GAP);
  parts.push(s("g", { "data-key": "deck", class: "card-slot" }, s("title", { text: `draw from the deck (${view.deck_size})` }),
    s("rect", { x: dx, y: dy, width: 84, height: CH, rx: 7, class: "card back" }),
    s("text", { x: dx + 42, y: dy + CH / 2 + 5, class: "hex-label light", text: `deck ${view.deck_size}` })));
  let y = Math.max(top + 290, ry + 32 + rows * (CH + GAP)) + 10;
  parts.push(s("text", { x: 10, y: y + 16, class: "caption strong", text: `Temple piles (${(view.pile_sizes || []).join(" and ")} cards)` }));
  y += 24;
  const pileGap = ui.narrow ? CW + 26 : CW + 40;
  view.pile_tops.forEach((card, i) => card && parts.push(s("g", { "data-key": `pile:${i}`, class: "pile" },
    s("title", { text: `temple pile ${i}` }), s("rect", { x: 10 + i * pileGap, y: y + 4, width: CW + 24, height: CH, rx: 7, class: "pile-back" }),
    temple(card, 6 + i * pileGap, y, `temple:${card.id}`))));
  y += CH + 20;
  for (const p of view.players.filter((q) => q !== own)) {
    const area = playerArea(p, view, names, y, width);
    parts.push(...area.parts);
    y = area.y;
  }
  const label = `Cóatl table: supply disc, ${view.row.length} prophecy cards in the row, ${view.players.length} players' coatls`;
  const svg = drawing(label, `0 0 ${width} ${y + 10}`, ...parts);
  svg.classList.add("coatl-table");
  const patternText = (c) => (c.pattern || []).join(" ");
  const summary = [
    `Phase ${view.phase}; to act: ${view.to_act.map(names).join(", ") || "nobody"}.`,
    `Disc: heads ${view.disc.heads.map((c) => c || "—").join(", ")}; tails ${view.disc.tails.map((c) => c || "—").join(", ")}; bodies ${view.disc.bodies.map((b) => b.join("+") || "—").join(", ")}.`,
    `Row: ${view.row.map((c) => `#${c.id} ${c.kind} ${patternText(c)}`).join("; ")}.`,
    `Temple piles: ${view.pile_tops.map((t) => (t ? `temple ${t.id}: ${t.requirements.map(requirementWords).join(", ")}` : "empty")).join("; ")}.`,
    ...view.players.flatMap((p) => [
      `${names(p.seat)}: ${p.score} points; pieces ${p.board.map((q) => `${q.color} ${q.kind}`).join(", ") || "none"}; coatls ${p.coatls.map((c) => c.pieces.map((q) => q.color).join("-")).join(" | ") || "none"}.`,
      p.hand ? `Your hand: ${p.hand.map((c) => `#${c.id} ${patternText(c)}`).join("; ") || "empty"}.` : ""]).filter(Boolean)];
  return { svg, summary };
}

/** A seat's progress in a few words, for the players panel. */
export function playerLine(view, seat) {
  const p = view.players.find((x) => x.seat === seat);
  return p ? `${p.completed} of 3 coatls · ${p.hand_size ?? "?"} cards · ${p.temple_count} temples · ${p.board.length} pieces` : "";
}
