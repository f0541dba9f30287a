/* Replay of a finished game: a slider over every version, as any seat, and the verification result. */

import { get, explain } from "./api.js";
import { h, status } from "./dom.js";
import { eventWords } from "./words.js";
import { MoveLog, outcomeLine, howItEnded } from "./moves.js";
import { viewport } from "./viewport.js";
import { boardFor, loadBoard } from "./boards/index.js";
import { verifyExport } from "./verify.js";

export async function showReplay(root, id) {
  const game = await get(`/v1/games/${id}`);
  await loadBoard(game.kind);
  const names = (seat) => game.seats.find((s) => s.seat === seat)?.name || `seat ${seat}`;
  const seatSel = h("select", { id: "replay-seat" }, ...game.seats.map((s) => h("option", { value: s.seat, text: `as ${names(s.seat)}` })));
  const slider = h("input", { id: "replay-version", type: "range", min: 1, max: game.version, value: game.version,
    "aria-label": "version" });
  const label = h("output", { for: "replay-version", id: "replay-label" });
  const boardBox = h("div", { class: "board-pane" });
  const movesBox = h("section", { class: "moves", "aria-label": "moves" });
  const state = { zoom: null };
  const short = (seat) => game.seats.find((s) => s.seat === seat)?.name || `seat ${seat}`;
  let log = new MoveLog(id, short, 0);
  const go = (n) => { slider.value = String(Math.max(1, Math.min(game.version, n))); show(); };
  const prev = h("button", { type: "button", id: "replay-prev", onclick: () => go(Number(slider.value) - 1), text: "◀ Back" });
  const next = h("button", { type: "button", id: "replay-next", onclick: () => go(Number(slider.value) + 1), text: "Next ▶" });
  const text = h("div", { class: "board-text" });
  const eventLine = h("p", { id: "replay-event" });
  const verdict = h("section", { id: "verification", "aria-label": "verification" }, h("h2", { text: "Verification" }), h("p", { text: "Checking…" }));
  let events = [];
  let shown = 0;
  const show = async () => {
    const n = Number(slider.value);
    const seat = Number(seatSel.value);
    label.textContent = `version ${n} of ${game.version}`;
    try {
      const at = await get(`/v1/games/${id}/versions/${n}?seat=${seat}`);
      if (Number(slider.value) !== n || Number(seatSel.value) !== seat) return;  // the slider moved on
      const view = at.view;
      const e = events.find((x) => x.version === n);
      eventLine.textContent = e ? eventWords(e) : "";
      log.saw(n, view);
      const last = log.events.filter((x) => x.version <= n).reverse().find((x) => log.lines.some((l) => l.version === x.version && l.kind === "move"));
      movesBox.replaceChildren(h("h2", { text: "Moves" }), log.element(n, go));
      const here = movesBox.querySelector(`li[data-version="${[...log.lines].reverse().find((l) => l.version <= n)?.version}"]`);
      if (here) { here.classList.add("current"); here.scrollIntoView({ block: "nearest" }); }
      if (view && view.kind) {
        const drawn = boardFor(game.kind).draw(view, { names, seats: game.seats.length, last, status: n === game.version ? game.status : "active" });
        const scroll = boardBox.querySelector(".viewport");
        const at = scroll ? [scroll.scrollLeft, scroll.scrollTop] : null;
        const board = boardFor(game.kind);
        const line = board.bar ? h("p", { class: "board-status", text: board.bar(view, { names, seat: null, status: n === game.version ? game.status : "active" }).text }) : null;
        boardBox.replaceChildren(...[line, viewport(drawn.svg, state)].filter(Boolean));
        if (at) { boardBox.querySelector(".viewport").scrollLeft = at[0]; boardBox.querySelector(".viewport").scrollTop = at[1]; }
        text.replaceChildren(...drawn.summary.map((l) => h("p", { text: l })));
      } else {
        boardBox.replaceChildren(h("p", { text: "Before the start: no board yet." }));
        text.replaceChildren();
      }
      shown = n;
      root.dataset.shown = String(shown);
    } catch (err) { status(explain(err), true); }
  };
  const loadEvents = async () => {
    log = new MoveLog(id, short, Number(seatSel.value));
    await log.update(Number(seatSel.value));
    events = log.events;
  };
  slider.addEventListener("input", show);
  seatSel.addEventListener("change", async () => { await loadEvents(); await show(); });
  root.replaceChildren(h("h1", { text: `Replay: ${game.kind}` }),
    h("p", {}, h("a", { href: `#/game/${id}`, text: "Back to the game" })),
    game.outcome ? h("div", { class: "outcome" }, h("p", { class: "result", text: `Final: ${outcomeLine(game.outcome, short)}.` }),
      h("p", { class: "how", text: howItEnded(game, short) })) : null,
    h("div", { class: "controls" }, seatSel, prev, slider, next, label), eventLine,
    h("div", { class: "table" }, boardBox, h("aside", { class: "side" }, movesBox)), h("details", { open: true }, h("summary", { text: "Board in words" }), text), verdict);
  await loadEvents();
  await show();
  verify(id, verdict);
  return () => {};
}

async function verify(id, box) {
  try {
    const report = await verifyExport(await get(`/v1/games/${id}/export`, { raw: true }));
    const ok = !report.chain.length && report.seed === "ok";
    box.replaceChildren(h("h2", { text: "Verification" }),
      h("p", { class: ok ? "ok" : "error", id: "verdict", text: ok ? "Verified" : "Problems found" }),
      h("ul", {},
        h("li", { text: `Hash chain: ${report.events.length} events, ${report.recomputed} hashes recomputed in this browser, ${report.chain.length ? report.chain.join("; ") : "every prev_hash links"}.` }),
        h("li", { text: `Seed: SHA-256 of the revealed seed ${report.seed === "ok" ? "equals" : "does not equal"} the commitment ${report.commitment} published at creation (${report.seed}).` })));
  } catch (err) {
    box.replaceChildren(h("h2", { text: "Verification" }), h("p", { class: "error", text: explain(err) }));
  }
}
