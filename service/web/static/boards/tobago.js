/* Tobago: the island (terrains, huts, palms, statues), amulets and ATVs on the board; the treasure maps with their
clues and the player's own clue cards beside it (`panels`: the side column at desktop widths, under the island on
a phone), as buttons named by the same keys as the board's parts. */

import { h, s, drawing, hexPoints, axial, SEAT_COLOURS } from "../dom.js";

const SIZE = 34;
const TERRAIN = { jungle: "#3f8f4f", beach: "#f1d98b", scrub: "#a3b86c", river: "#5dade2", lake: "#2e86c1",
  mountain: "#a6a6a6", mountains: "#a6a6a6", ocean: "#d6eaf8" };
const MAP_COLOURS = { white: "#ffffff", grey: "#c8c8c8", brown: "#c49a6c", yellow: "#f4d03f", green: "#58d68d", red: "#ec7063", blue: "#5dade2", black: "#333" };

/** The click path of a command: a hex of the island, a clue card (then a map), a map (then a hex). */
export function keys(c) {
  const t = c.type.split(".")[1];
  if (t === "PlayClue") return [`card:${c.card}`, `map:${c.map}`];
  if (t === "CollectTreasure") return [`map:${c.map}`];
  if (t === "RemoveCandidate") return [`map:${c.map}`, `hex:${c.hex}`];
  if (t === "StartHunt") return [`card:${c.card}`];
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
  const lastHex = ui.last && ui.last.data && Number.isInteger(ui.last.data.hex) ? ui.last.data.hex : null;
  const hexes = view.island.map(([q, r, terrain], i) => {
    const [x, y] = centres[i];
    const mark = landmarkOf(view, i);
    const parts = [s("polygon", { points: hexPoints(x, y, SIZE - 0.5), fill: TERRAIN[terrain] || "#ccc", class: "hex" })];
    if (mark === "hut") parts.push(s("path", { d: `M${x - 10} ${y + 8} h20 v-10 l-10 -9 l-10 9 z`, class: "hut" }));
    if (mark === "palm") parts.push(s("path", { d: `M${x} ${y + 12} v-15 m0 0 l-10 -4 m10 4 l10 -4 m-10 4 l-6 -10 m6 10 l6 -10`, class: "palm" }));
    if (mark === "statue") {
      const st = view.statues.find((v) => v.hex === i);
      const a = (-90 + 60 * (st ? st.facing : 0)) * Math.PI / 180;
      parts.push(s("circle", { cx: x, cy: y, r: 9, class: "statue" }),
        s("line", { x1: x, y1: y, x2: x + 22 * Math.cos(a), y2: y + 22 * Math.sin(a), class: "gaze" }));
    }
    if (i === lastHex) parts.push(s("polygon", { points: hexPoints(x, y, SIZE - 4), class: "last-ring" }));
    const title = `hex ${i} (${q}, ${r}) ${terrain}${mark ? `, ${mark}` : ""}${i === lastHex ? " (last move)" : ""}`;
    return s("g", { "data-key": `hex:${i}`, class: "space" }, s("title", { text: title }), ...parts);
  });
  const amulets = view.amulets.map((a) => {
    const [x, y] = centres[a.hex];
    return s("circle", { cx: x + 13, cy: y - 13, r: 8, class: "amulet" }, s("title", { text: `amulet on hex ${a.hex}` }));
  });
  const markers = view.maps.flatMap((m, mi) => (m.markers_on_board ? m.candidates : []).map((hex) => {
    const [x, y] = centres[hex];
    return s("rect", { x: x - 22 + mi * 11, y: y + 10, width: 10, height: 10, fill: MAP_COLOURS[m.colour] || "#999", class: "marker" },
      s("title", { text: `${m.colour} map treasure may be on hex ${hex}` }));
  }));
  const atvs = view.players.filter((p) => p.atv !== null).map((p) => {
    const [x, y] = centres[p.atv];
    return s("rect", { x: x - 20 + p.seat * 10, y: y - 18, width: 22, height: 16, rx: 3, fill: SEAT_COLOURS[p.seat], class: "atv" },
      s("title", { text: `${names(p.seat)}'s ATV on hex ${p.atv}` }));
  });
  const xs = centres.map((c) => c[0]), ys = centres.map((c) => c[1]);
  const minX = Math.min(...xs) - SIZE, minY = Math.min(...ys) - SIZE, w = Math.max(...xs) - minX + SIZE, hgt = Math.max(...ys) - minY + SIZE;
  const label = `Tobago island of ${view.island.length} hexes with ${view.players.length} ATVs and ${view.amulets.length} amulets`;
  const svg = drawing(label, `${minX} ${minY} ${w} ${hgt}`, ...hexes, ...markers, ...amulets, ...atvs);
  const mine = view.private;
  const summary = [
    `Phase ${view.phase}; ${ui.status && ui.status !== "active" ? "the game is over" : `${names(view.turn.seat)} to act`}.`,
    ...view.players.map((p) => `${names(p.seat)}: ATV on hex ${p.atv ?? "none"}, ${p.amulets} amulets, ${p.roses} roses, ${p.hand_count} clues in hand, ${p.treasure_count} treasure cards.`),
    ...view.maps.map((m) => `${m.colour} map: ${m.clues.map((c) => `${c.card.text} (${names(c.seat)})`).join("; ") || "no clue"}; ${m.candidates.length > 12 ? `${m.candidates.length} candidates` : `candidates ${m.candidates.join(", ")}`}.`),
    mine ? `Your clues: ${mine.hand.map((c) => `${c.id} ${c.text}`).join("; ") || "none"}. Your gold: ${mine.gold}.` : "",
    view.share ? `Share of the ${view.maps[view.share.map]?.colour} map: ${view.share.card ? `face-up ${view.share.card.kind} ${view.share.card.gold}` : "no card"}, offered to ${view.share.offer === null ? "nobody" : names(view.share.offer)}.` : "",
  ].filter(Boolean);
  return { svg, summary };
}

/** The treasure maps (each with its clues and how many hexes may still hold its treasure) and the player's own
    clue cards: buttons (a map to play a clue on or to collect; a clue card to play), whole texts, never clipped. */
export function panels(view) {
  const maps = h("section", { class: "tobago-maps", "aria-label": "treasure maps" }, h("h2", { text: "Treasure maps" }),
    h("div", { class: "card-list" }, ...view.maps.map((m, mi) => h("button", { type: "button", class: "part map-card", "data-key": `map:${mi}`,
      title: `${m.colour} map`, style: `--map: ${MAP_COLOURS[m.colour] || "#eee"}` },
    h("span", { class: "map-name", text: `${m.colour.charAt(0).toUpperCase()}${m.colour.slice(1)} map · ${m.candidates.length} hex${m.candidates.length === 1 ? "" : "es"} left` }),
    m.clues.length ? h("ul", { class: "clues" }, ...m.clues.map((c) => h("li", { text: c.card.text })))
      : h("span", { class: "no-clue", text: "no clue yet" })))));
  const hand = view.private ? view.private.hand : null;
  if (hand === null) return [maps];
  const clues = h("section", { class: "tobago-clues", "aria-label": "your clue cards" }, h("h2", { text: `Your clue cards (${hand.length})` }),
    h("div", { class: "card-list" }, ...hand.map((card) => h("button", { type: "button", class: "part clue-card", "data-key": `card:${card.id}`,
      title: `your clue ${card.id}` }, h("span", { class: "clue-id", text: card.id }), h("span", { text: card.text })))));
  return [maps, clues];
}

/** A seat's ATV and cards in a few words, for the players panel. */
export function playerLine(view, seat) {
  const p = view.players.find((x) => x.seat === seat);
  return p ? `${p.amulets} amulets · ${p.hand_count} clues · ${p.treasure_count} treasure cards` : "";
}
