/* The arena on the one competition page (competition.js): its summary and moves (join, pause, join again to
resume, leave for good), its standings columns (the streak on fire, the last games), the countdown to its start
or end, and berserk in the player's running game.

Only the public API: /v1/arenas/{id} (join, pause, leave, bots, games/{id}/berserk) and the arena's stream,
whose `snapshot` and `standings` frames carry the arena's view (the server does the scoring). */

import { h } from "./dom.js";

/** "12:05" for a number of milliseconds (never negative). */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  return `${m}:${String(total % 60).padStart(2, "0")}`;
}

function tick(page) {
  const a = page.shown;
  if (!a || !page.countdown) return;
  const now = Date.now();
  if (a.status === "finished") page.countdown.textContent = "Finished";
  else if (a.status === "closing") page.countdown.textContent = "Time is up: the last games are finishing";
  else if (now < a.starts_at_ms) page.countdown.textContent = `Starts in ${clockText(a.starts_at_ms - now)}`;
  else page.countdown.textContent = `Ends in ${clockText(a.ends_at_ms - now)}`;
}

export const ARENA = {
  title: (a) => `${a.kind} arena`,
  entered: "in the arena",
  pausedNow: (s) => s.presence === "paused",
  summary: (a) => [`${a.kind}, arena, ${a.seats} per game, ${a.players} player${a.players === 1 ? "" : "s"}, `,
    `${a.games} games (${a.running} running)${a.berserk ? ", berserk allowed" : ""}. `],
  head(a, page) {
    page.countdown = page.countdown || h("p", { id: "a-countdown", "aria-live": "off" });
    tick(page);
    return page.countdown;
  },
  start(page) {
    const timer = setInterval(() => tick(page), 1000);
    return () => clearInterval(timer);
  },
  myGame: (a, player, mine) => (mine && mine.playing ? { id: mine.playing, text: "Your game is on: play it" } : null),
  /** Berserk in the running game: half the clock for +1 on a win (refused after one's first move there). */
  gameTools(a, game, act, page) {
    if (!a.berserk || a.status === "finished" || page.berserked.has(game.id)) return null;
    return h("button", { type: "button", id: "a-berserk", text: "Berserk: half my clock for +1 on a win", onclick: () => {
      page.berserked.add(game.id);  // once per game: the page, read again after it, is drawn without the button
      act(`games/${game.id}/berserk`, a.berserk_moves
        ? `Berserk: your clock is halved; the bonus counts once you have made ${a.berserk_moves} moves` : "Berserk: your clock is halved");
    } });
  },
  may(a, mine) {
    const open = a.status === "open";
    const active = open && mine && mine.presence === "active";
    return { enter: open && !mine, resume: open && mine && mine.presence === "paused", pause: active, leave: active };
  },
  moves: () => ({ enter: ["join", "Join", "Joined: paired as soon as enough players are free"],
    resume: ["join", "Resume", "Back in the arena"], pause: ["pause", "Pause", "Paused: join again to resume"],
    leave: ["leave", "Leave for good", "Left the arena (your points stay)"] }),
  // the player's own moves answer with their part of the arena alone, not the arena (the bots' entry does)
  answersEntry: (what) => ["join", "pause", "leave"].includes(what) || what.endsWith("/berserk"),
  toolsOpen: (a) => a.status === "open",
  entriesOpen: (a) => a.status === "open",
  caption: "2 a win, 1 a draw, doubled on a streak of two wins",
  columns: () => [{ title: "Streak", class: "fire", text: (s) => (s.fire ? "on fire" : "") }],
  after: [{ title: "Last games", class: "sheet", text: (s) => s.sheet.slice(-10).join(" ") }],
  place: (s) => s.rank,
  state: (s) => (s.playing ? "playing" : s.presence),
  follow(source, draw, reload) {
    source.addEventListener("standings", (msg) => {
      const view = JSON.parse(msg.data);
      // the frame carries the leaders only: keep the whole table when it has more rows
      if (view.players > view.standings.length) reload();
      else draw(view);
    });
  },
  parts: () => [],
};
