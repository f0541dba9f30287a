/* Cóatl: the supply disc, the prophecy row, the temple piles, each player's pieces, coatls and cards. */

import { s, drawing, SEAT_COLOURS } from "../dom.js";

const PIECE = { red: "#c0392b", yellow: "#f1c40f", blue: "#2e86c1", green: "#27ae60", black: "#222", white: "#eee" };
const W = 640;

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

function piece(p, x, y, key) {
  const r = p.kind === "head" ? 9 : p.kind === "tail" ? 6 : 7.5;
  const shape = p.kind === "head" ? s("path", { d: `M${x - r} ${y + r} L${x} ${y - r} L${x + r} ${y + r} z`, fill: PIECE[p.color], class: "piece" })
    : s("circle", { cx: x, cy: y, r, fill: PIECE[p.color], class: "piece" });
  return s("g", key ? { "data-key": key } : {}, s("title", { text: `${p.color} ${p.kind}` }), shape);
}

function patternText(card) {
  return (card.pattern || []).join(" ");
}

function prophecy(card, x, y, key) {
  const dots = (card.pattern || []).map((c, i) => s("circle", { cx: x + 10 + i * 11, cy: y + 30, r: 4.5,
    fill: PIECE[c.replace(/\W/g, "")] || "#999", class: "piece" }));
  const points = Object.entries(card.points || {}).map(([k, v]) => `${k}×:${v}`).join(" ");
  return s("g", key ? { "data-key": key, class: "card-slot" } : { class: "card-slot" },
    s("title", { text: `prophecy ${card.id}: ${card.kind} ${patternText(card)}, points ${points}` }),
    s("rect", { x, y, width: 74, height: 48, rx: 4, class: "card" }),
    s("text", { x: x + 4, y: y + 12, class: "card-text", text: `#${card.id} ${card.kind.split("_")[0]}` }),
    ...dots, s("text", { x: x + 4, y: y + 45, class: "card-text", text: points }));
}

function temple(card, x, y, key) {
  const reqs = card.requirements.map((r) => Object.entries(r).map(([k, v]) => `${k.replace(/_/g, " ")} ${[].concat(v).join(" ")}`).join("")).join("; ");
  const points = Object.entries(card.points_by_requirements_met || {}).map(([k, v]) => `${k}:${v}`).join(" ");
  return s("g", key ? { "data-key": key, class: "card-slot" } : { class: "card-slot" },
    s("title", { text: `temple ${card.id}: ${reqs}; points ${points}` }),
    s("rect", { x, y, width: 100, height: 48, rx: 4, class: "card temple" }),
    s("text", { x: x + 4, y: y + 12, class: "card-text", text: `temple ${card.id}` }),
    s("text", { x: x + 4, y: y + 26, class: "card-text small", text: reqs.slice(0, 24) }),
    s("text", { x: x + 4, y: y + 42, class: "card-text", text: points }));
}

export function draw(view, ui) {
  const names = ui.names;
  const parts = [];
  let y = 10;
  parts.push(s("text", { x: 8, y: y + 10, class: "caption", text: "Supply disc" }));
  const slots = [...view.disc.heads.map((c, i) => ["head", i, c ? [c] : []]), ...view.disc.tails.map((c, i) => ["tail", i, c ? [c] : []]),
    ...view.disc.bodies.map((cs, i) => ["body", i, cs])];
  slots.forEach(([kind, i, colours], n) => {
    const x = 12 + n * 44;
    parts.push(s("g", { "data-key": `disc:${kind}:${i}`, class: "slot" }, s("title", { text: `${kind} slot ${i}: ${colours.join(", ") || "empty"}` }),
      s("rect", { x, y: y + 16, width: 40, height: 28, rx: 6, class: "disc-slot" }),
      ...colours.map((c, k) => piece({ kind, color: c }, x + 11 + k * 18, y + 30))));
  });
  y += 56;
  parts.push(s("text", { x: 8, y: y + 10, class: "caption", text: `Prophecy row (deck ${view.deck_size})` }));
  view.row.forEach((card, i) => parts.push(prophecy(card, 8 + i * 78, y + 16, `row:${card.id}`)));
  parts.push(s("g", { "data-key": "deck", class: "card-slot" }, s("title", { text: `draw from the deck (${view.deck_size})` }),
    s("rect", { x: 8 + view.row.length * 78, y: y + 16, width: 48, height: 48, rx: 4, class: "card back" })));
  y += 70;
  parts.push(s("text", { x: 8, y: y + 10, class: "caption", text: "Temple piles" }));
  view.pile_tops.forEach((card, i) => card && parts.push(s("g", { "data-key": `pile:${i}`, class: "pile" },
    s("title", { text: `temple pile ${i}` }), s("rect", { x: 6 + i * 106, y: y + 14, width: 104, height: 52, rx: 5, class: "pile-back" }),
    temple(card, 8 + i * 106, y + 16, `temple:${card.id}`))));
  y += 70;
  for (const p of view.players) {
    parts.push(s("text", { x: 8, y: y + 12, class: "caption", fill: SEAT_COLOURS[p.seat],
      text: `${names(p.seat)} — ${p.score} points, ${p.completed} coatls done, ${p.hand_size} cards, ${p.temple_count} temples` }));
    y += 18;
    p.board.forEach((pc, i) => parts.push(piece(pc, 16 + i * 22, y + 10, p.seat === view.seat ? `piece:${pc.kind}:${pc.color}` : null)));
    if (p.seat === view.seat) parts.push(s("g", { "data-key": "new-coatl", class: "slot" }, s("title", { text: "start a new coatl" }),
      s("rect", { x: W - 90, y: y, width: 80, height: 20, rx: 4, class: "disc-slot" }),
      s("text", { x: W - 84, y: y + 14, class: "card-text", text: "new coatl" })),
    s("g", { "data-key": "discard", class: "slot" }, s("title", { text: "discard a prophecy card" }),
      s("rect", { x: W - 176, y: y, width: 80, height: 20, rx: 4, class: "disc-slot" }),
      s("text", { x: W - 170, y: y + 14, class: "card-text", text: "discard" })),
    p.seat === view.seat && (p.dealt || []).length ? s("g", { "data-key": "keep", class: "slot" },
      s("title", { text: "keep the chosen cards, discard the other dealt ones" }),
      s("rect", { x: W - 262, y: y, width: 80, height: 20, rx: 4, class: "disc-slot" }),
      s("text", { x: W - 256, y: y + 14, class: "card-text", text: "keep chosen" })) : null);
    y += 26;
    p.coatls.forEach((c, ci) => {
      parts.push(s("g", { "data-key": `coatl:${ci}:head`, class: "slot" }, s("title", { text: `head end of coatl ${ci}` }),
        s("rect", { x: 8, y: y - 2, width: 14, height: 24, rx: 3, class: "end" })));
      parts.push(s("g", { "data-key": `coatl:${ci}`, class: "slot" },
        s("title", { text: `coatl ${ci} (${c.status}, worth ${c.value}): ${c.pieces.map((q) => `${q.color} ${q.kind}`).join(", ")}` }),
        s("rect", { x: 24, y: y - 2, width: 18 * c.pieces.length + 8, height: 24, rx: 10, class: "coatl" }),
        ...c.pieces.map((q, k) => piece(q, 32 + k * 18, y + 10, null))));
      const tailX = 34 + 18 * c.pieces.length;
      parts.push(s("g", { "data-key": `coatl:${ci}:tail`, class: "slot" }, s("title", { text: `tail end of coatl ${ci}` }),
        s("rect", { x: tailX, y: y - 2, width: 14, height: 24, rx: 3, class: "end" })));
      c.cards.forEach((card, k) => parts.push(prophecy(card, tailX + 20 + k * 78, y - 12, null)));
      if (c.temple) parts.push(temple(c.temple, tailX + 20 + c.cards.length * 78, y - 12, null));
      y += 50;
    });
    const hand = [...(p.hand || []), ...(p.dealt || [])];  // the opening's dealt cards are picked like the hand
    hand.forEach((card, i) => parts.push(prophecy(card, 8 + (i % 8) * 78, y + Math.floor(i / 8) * 52, `hand:${card.id}`)));
    y += Math.ceil(hand.length / 8) * 52;
    (p.temples || []).forEach((t, i) => parts.push(temple(t, 8 + i * 106, y, `temple:${t.id}`)));
    y += (p.temples && p.temples.length ? 54 : 0) + 8;
  }
  const label = `Cóatl table: supply disc, ${view.row.length} prophecy cards in the row, ${view.players.length} players' coatls`;
  const svg = drawing(label, `0 0 ${W} ${y + 10}`, ...parts);
  const summary = [
    `Phase ${view.phase}; to act: ${view.to_act.map(names).join(", ") || "nobody"}.`,
    `Disc: heads ${view.disc.heads.map((c) => c || "—").join(", ")}; tails ${view.disc.tails.map((c) => c || "—").join(", ")}; bodies ${view.disc.bodies.map((b) => b.join("+") || "—").join(", ")}.`,
    `Row: ${view.row.map((c) => `#${c.id} ${c.kind} ${patternText(c)}`).join("; ")}.`,
    ...view.players.flatMap((p) => [
      `${names(p.seat)}: ${p.score} points; pieces ${p.board.map((q) => `${q.color} ${q.kind}`).join(", ") || "none"}; coatls ${p.coatls.map((c) => c.pieces.map((q) => q.color).join("-")).join(" | ") || "none"}.`,
      p.hand ? `Your hand: ${p.hand.map((c) => `#${c.id} ${patternText(c)}`).join("; ") || "empty"}.` : ""]).filter(Boolean)];
  return { svg, summary };
}
