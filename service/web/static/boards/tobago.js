/* Tobago: the island (terrains, huts, palms, statues), amulets, ATVs, maps with clues, own cards. */

import { s, drawing, hexPoints, axial, SEAT_COLOURS } from "../dom.js";

const SIZE = 22;
const TERRAIN = { jungle: "#3f8f4f", beach: "#f1d98b", scrub: "#a3b86c", river: "#5dade2", lake: "#2e86c1",
  mountain: "#8d8175", ocean: "#d6eaf8" };
const MAP_COLOURS = { white: "#ffffff", yellow: "#f4d03f", green: "#58d68d", red: "#ec7063", blue: "#5dade2", black: "#333" };

/** The click path of a command: a hex of the island, a clue card then a map, or a map. */
export function keys(c) {
  const t = c.type.split(".")[1];
  if (t === "PlayClue") return [`card:${c.card}`, `map:${c.map}`];
  if (t === "CollectTreasure") return [`map:${c.map}`];
  if ("hex" in c) return [`hex:${c.hex}`];
  return null;
}

function landmarkOf(view, i) {
  if (view.landmarks.huts.includes(i)) return "hut";
  if (view.landmarks.palms.includes(i)) return "palm";
  if (view.landmarks.statues.includes(i)) return "statue";
  return null;
}

export function draw(view, ui) {
  const names = ui.names;
  const centres = view.island.map(([q, r]) => axial(q, r, SIZE));
  const hexes = view.island.map(([q, r, terrain], i) => {
    const [x, y] = centres[i];
    const mark = landmarkOf(view, i);
    const parts = [s("polygon", { points: hexPoints(x, y, SIZE - 0.5), fill: TERRAIN[terrain] || "#ccc", class: "hex" })];
    if (mark === "hut") parts.push(s("path", { d: `M${x - 7} ${y + 5} h14 v-7 l-7 -6 l-7 6 z`, class: "hut" }));
    if (mark === "palm") parts.push(s("text", { x, y: y + 5, class: "icon", text: "🌴" }));
    if (mark === "statue") {
      const st = view.statues.find((v) => v.hex === i);
      const a = (-90 + 60 * (st ? st.facing : 0)) * Math.PI / 180;
      parts.push(s("circle", { cx: x, cy: y, r: 6, class: "statue" }),
        s("line", { x1: x, y1: y, x2: x + 14 * Math.cos(a), y2: y + 14 * Math.sin(a), class: "gaze" }));
    }
    const title = `hex ${i} (${q}, ${r}) ${terrain}${mark ? `, ${mark}` : ""}`;
    return s("g", { "data-key": `hex:${i}`, class: "space" }, s("title", { text: title }), ...parts);
  });
  const amulets = view.amulets.map((a) => {
    const [x, y] = centres[a.hex];
    return s("circle", { cx: x + 9, cy: y - 9, r: 4, class: "amulet" }, s("title", { text: `amulet on hex ${a.hex}` }));
  });
  const markers = view.maps.flatMap((m, mi) => (m.markers_on_board ? m.candidates : []).map((hex) => {
    const [x, y] = centres[hex];
    return s("rect", { x: x - 12 + mi * 5, y: y + 8, width: 5, height: 5, fill: MAP_COLOURS[m.colour] || "#999", class: "marker" },
      s("title", { text: `${m.colour} map treasure may be on hex ${hex}` }));
  }));
  const atvs = view.players.filter((p) => p.atv !== null).map((p) => {
    const [x, y] = centres[p.atv];
    return s("rect", { x: x - 9 + p.seat * 6, y: y - 4, width: 10, height: 8, rx: 2, fill: SEAT_COLOURS[p.seat], class: "atv" },
      s("title", { text: `${names(p.seat)}'s ATV on hex ${p.atv}` }));
  });
  const xs = centres.map((c) => c[0]), ys = centres.map((c) => c[1]);
  const minX = Math.min(...xs) - SIZE, minY = Math.min(...ys) - SIZE, w = Math.max(...xs) - minX + SIZE, hgt = Math.max(...ys) - minY + SIZE;
  const mapCards = view.maps.map((m, mi) => {
    const y = minY + hgt + 10 + mi * 24;
    return s("g", { "data-key": `map:${mi}`, class: "card-slot" },
      s("title", { text: `${m.colour} map: ${m.clues.map((c) => c.card.text).join("; ") || "no clue"}; ${m.candidates.length} candidates` }),
      s("rect", { x: minX, y, width: w, height: 20, rx: 4, fill: MAP_COLOURS[m.colour] || "#eee", class: "map" }),
      s("text", { x: minX + 6, y: y + 14, class: "card-text",
        text: `${m.colour}: ${m.clues.map((c) => c.card.text).join(" · ") || "—"} (${m.candidates.length} left)` }));
  });
  const hand = view.private ? view.private.hand : [];
  const top = minY + hgt + 14 + view.maps.length * 24;
  const handCards = hand.map((card, i) => s("g", { "data-key": `card:${card.id}`, class: "card-slot" },
    s("title", { text: `your clue ${card.id}: ${card.text}` }),
    s("rect", { x: minX + (i % 3) * (w / 3), y: top + Math.floor(i / 3) * 24, width: w / 3 - 4, height: 20, rx: 4, class: "card" }),
    s("text", { x: minX + (i % 3) * (w / 3) + 4, y: top + Math.floor(i / 3) * 24 + 14, class: "card-text", text: card.text })));
  const total = top + Math.ceil(hand.length / 3) * 24 + 8 - minY;
  const label = `Tobago island of ${view.island.length} hexes with ${view.players.length} ATVs and ${view.amulets.length} amulets`;
  const svg = drawing(label, `${minX} ${minY} ${w} ${total}`, ...hexes, ...markers, ...amulets, ...atvs, ...mapCards, ...handCards);
  const mine = view.private;
  const summary = [
    `Phase ${view.phase}; ${names(view.turn.seat)} to play.`,
    ...view.players.map((p) => `${names(p.seat)}: ATV on hex ${p.atv ?? "none"}, ${p.amulets} amulets, ${p.roses} roses, ${p.hand_count} clues in hand, ${p.treasure_count} treasure cards.`),
    ...view.maps.map((m) => `${m.colour} map: ${m.clues.map((c) => `${c.card.text} (${names(c.seat)})`).join("; ") || "no clue"}; candidates ${m.candidates.join(", ")}.`),
    mine ? `Your clues: ${mine.hand.map((c) => `${c.id} ${c.text}`).join("; ") || "none"}. Your gold: ${mine.gold}.` : "",
    view.share ? `Share of the ${view.maps[view.share.map]?.colour} map: ${view.share.card ? `face-up ${view.share.card.kind} ${view.share.card.gold}` : "no card"}, offered to ${view.share.offer === null ? "nobody" : names(view.share.offer)}.` : "",
  ].filter(Boolean);
  return { svg, summary };
}
